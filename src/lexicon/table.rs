//! An open-addressing hash table from strings to entry indices, where the
//! strings live in one shared text buffer. Building it allocates nothing per
//! key, which keeps loading the embedded lexicon fast.

/// Hash table over keys that are byte ranges of a shared buffer.
#[derive(Debug, Clone, Default)]
pub(super) struct KeyTable {
    /// Entry index + 1 per slot; 0 marks an empty slot.
    slots: Vec<u32>,
    mask: usize,
}

/// FNV-1a, 64 bits (fast for the short keys of a lexicon), with its high
/// bits folded into the low ones the table indexes by.
fn hash(key: &[u8]) -> u64 {
    let h = crate::text::hash::fnv1a(key);
    h ^ (h >> 29)
}

impl KeyTable {
    /// A table sized for `n` keys at a load factor of at most one half.
    pub(super) fn with_capacity(n: usize) -> KeyTable {
        let size = (n.max(1) * 2).next_power_of_two();
        KeyTable {
            slots: vec![0; size],
            mask: size - 1,
        }
    }

    /// Inserts entry `index` under `key`; `key_of` returns the key of an
    /// existing entry. A key already present keeps its first entry.
    pub(super) fn insert<'a>(&mut self, key: &[u8], index: u32, key_of: impl Fn(u32) -> &'a [u8]) {
        let mut slot = hash(key) as usize & self.mask;
        loop {
            match self.slots[slot] {
                0 => {
                    self.slots[slot] = index + 1;
                    return;
                }
                e if key_of(e - 1) == key => return,
                _ => slot = (slot + 1) & self.mask,
            }
        }
    }

    /// The entry stored under `key`, if any.
    pub(super) fn find<'a>(&self, key: &[u8], key_of: impl Fn(u32) -> &'a [u8]) -> Option<u32> {
        if self.slots.is_empty() {
            return None;
        }
        let mut slot = hash(key) as usize & self.mask;
        loop {
            match self.slots[slot] {
                0 => return None,
                e if key_of(e - 1) == key => return Some(e - 1),
                _ => slot = (slot + 1) & self.mask,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_what_was_inserted() {
        let keys = ["potato", "car", "auto", "automobile", "", "x"];
        let mut t = KeyTable::with_capacity(keys.len());
        for (i, k) in keys.iter().enumerate() {
            t.insert(k.as_bytes(), i as u32, |e| keys[e as usize].as_bytes());
        }
        for (i, k) in keys.iter().enumerate() {
            assert_eq!(
                t.find(k.as_bytes(), |e| keys[e as usize].as_bytes()),
                Some(i as u32)
            );
        }
        assert_eq!(t.find(b"potatoes", |e| keys[e as usize].as_bytes()), None);
        assert_eq!(KeyTable::default().find(b"a", |_| b""), None);
    }
}
