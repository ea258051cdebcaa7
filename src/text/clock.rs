//! Times as the outputs write them: RFC 3339 UTC with milliseconds, and
//! the compact form of run folder names (years 1970 to 9999).

use std::time::{SystemTime, UNIX_EPOCH};

/// `t` within what RFC 3339 text can show (years 1970 to 9999).
fn printable(t: SystemTime) -> SystemTime {
    const LAST: u64 = 253_402_300_799; // 9999-12-31T23:59:59Z
    let latest = UNIX_EPOCH + std::time::Duration::from_secs(LAST);
    t.clamp(UNIX_EPOCH, latest)
}

/// RFC 3339 UTC time with millisecond precision, e.g. "2026-11-22T05:21:00.123Z".
pub fn rfc3339(t: SystemTime) -> String {
    humantime::format_rfc3339_millis(printable(t)).to_string()
}

/// Compact UTC timestamp for folder names, e.g. "20261122T052100Z".
pub fn folder_timestamp(t: SystemTime) -> String {
    humantime::format_rfc3339_seconds(printable(t))
        .to_string()
        .replace(['-', ':'], "")
}
