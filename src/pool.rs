//! Large buffers kept for the next task of a parallel loop (see [`Pool`]).

/// Buffers done with, kept for the next task of a parallel loop: each
/// task takes a set ([`Pool::take`]: a kept one, else a new one) and puts
/// it back when done ([`Pool::put`]), so that tasks run one after another
/// reuse the same large buffers instead of each allocating, faulting in
/// and freeing its own. It holds as many sets as tasks ran at once; they
/// are freed when the pool is dropped or [`Pool::clear`]ed.
#[derive(Debug, Default)]
pub(crate) struct Pool<T>(std::sync::Mutex<Vec<T>>);

impl<T: Default> Pool<T> {
    /// A kept set, else a new (default) one.
    pub(crate) fn take(&self) -> T {
        self.0
            .lock()
            .ok()
            .and_then(|mut kept| kept.pop())
            .unwrap_or_default()
    }

    /// Keeps a set for the next task.
    pub(crate) fn put(&self, set: T) {
        if let Ok(mut kept) = self.0.lock() {
            kept.push(set);
        }
    }

    /// Frees every set kept.
    pub(crate) fn clear(&self) {
        if let Ok(mut kept) = self.0.lock() {
            *kept = Vec::new();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Pool;

    #[test]
    fn the_next_task_gets_a_kept_buffer_with_its_room() {
        let pool: Pool<Vec<u8>> = Pool::default();
        let mut buf = pool.take();
        buf.extend_from_slice(&[0; 4096]);
        pool.put(buf);
        assert!(pool.take().capacity() >= 4096);
        // Nothing kept: a new one.
        assert_eq!(pool.take().capacity(), 0);
        pool.put(vec![1; 10]);
        pool.clear();
        assert_eq!(pool.take().capacity(), 0);
    }
}
