//! Shards of a batch for job arrays: `--shard I/N` processes the items
//! whose id falls in shard I of N, and `corpus-eval merge` puts the shards
//! back together.
//!
//! An item's shard is `FNV-1a-64(id as UTF-8) mod N + 1`: stable across
//! machines, runs and versions, independent of the item's position, so a
//! shard holds the same items whatever else the file holds.
//!
//! ```
//! use corpus_eval::shard::Shard;
//! let s: Shard = "2/3".parse().unwrap();
//! assert_eq!((s.index, s.count), (2, 3));
//! assert_eq!(s.to_string(), "2/3");
//! // Every id lands in exactly one of the N shards.
//! for id in ["dk-01", "q7", ""] {
//!     let hits = (1..=3).filter(|&i| Shard { index: i, count: 3 }.contains(id)).count();
//!     assert_eq!(hits, 1);
//! }
//! assert!("0/3".parse::<Shard>().is_err() && "4/3".parse::<Shard>().is_err());
//! ```

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Most shards of one batch.
pub const MAX_SHARDS: u32 = 100_000;

/// Shard `index` of `count` (1 <= index <= count).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Shard {
    /// Which shard, from 1.
    pub index: u32,
    /// How many shards.
    pub count: u32,
}

/// The shard (1-based) of an item id among `count`.
pub fn shard_of(id: &str, count: u32) -> u32 {
    (crate::text::hash::fnv1a(id.as_bytes()) % u64::from(count.max(1))) as u32 + 1
}

impl Shard {
    /// Whether the item `id` belongs to this shard.
    pub fn contains(&self, id: &str) -> bool {
        shard_of(id, self.count) == self.index
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl std::str::FromStr for Shard {
    type Err = String;

    fn from_str(s: &str) -> Result<Shard, String> {
        let bad = || format!("{s:?}: expected I/N with 1 <= I <= N <= {MAX_SHARDS} (e.g. 2/8)");
        let (i, n) = s.trim().split_once('/').ok_or_else(bad)?;
        let (index, count): (u32, u32) = (
            i.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if index == 0 || index > count || count > MAX_SHARDS {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl Serialize for Shard {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Shard {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Shard, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}
