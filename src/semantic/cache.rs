//! An in-memory embedding cache for one run: each distinct text is embedded
//! once, and every request embeds all its missing texts in one batched call.

use super::embedder::Embedder;
use super::SemanticError;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// A unit-length embedding shared between cache and callers.
pub(crate) type Embedding = Arc<[f32]>;

/// Embeddings by text, filled on demand from an [`Embedder`].
#[derive(Debug)]
pub struct EmbeddingCache<'e> {
    embedder: &'e Embedder,
    map: Mutex<HashMap<String, Embedding>>,
    computed: AtomicUsize,
    reused: AtomicUsize,
}

impl<'e> EmbeddingCache<'e> {
    /// An empty cache over `embedder`.
    pub fn new(embedder: &'e Embedder) -> Self {
        EmbeddingCache {
            embedder,
            map: Mutex::new(HashMap::new()),
            computed: AtomicUsize::new(0),
            reused: AtomicUsize::new(0),
        }
    }

    /// The model behind the cache.
    pub fn embedder(&self) -> &'e Embedder {
        self.embedder
    }

    /// The embeddings of `texts`, in order; texts not seen before are
    /// embedded together in one batched call.
    pub fn embed_all<S: AsRef<str>>(&self, texts: &[S]) -> Result<Vec<Embedding>, SemanticError> {
        let missing: Vec<String> = {
            let map = self.lock();
            let mut seen = std::collections::HashSet::new();
            texts
                .iter()
                .map(|t| t.as_ref())
                .filter(|t| !map.contains_key(*t) && seen.insert(*t))
                .map(str::to_string)
                .collect()
        };
        let fresh = if missing.is_empty() {
            Vec::new()
        } else {
            self.embedder.embed(&missing)?
        };
        self.computed.fetch_add(missing.len(), Ordering::Relaxed);
        self.reused
            .fetch_add(texts.len() - missing.len(), Ordering::Relaxed);
        let mut map = self.lock();
        for (text, v) in missing.into_iter().zip(fresh) {
            map.insert(text, Arc::from(v));
        }
        texts
            .iter()
            .map(|t| {
                map.get(t.as_ref())
                    .cloned()
                    .ok_or_else(|| SemanticError::Inference {
                        message: "embedding missing from the cache".into(),
                    })
            })
            .collect()
    }

    /// Cosine similarity of each pair, embedding every distinct text once.
    pub fn similarities<A: AsRef<str>, B: AsRef<str>>(
        &self,
        pairs: &[(A, B)],
    ) -> Result<Vec<f64>, SemanticError> {
        let texts: Vec<&str> = pairs
            .iter()
            .flat_map(|(a, b)| [a.as_ref(), b.as_ref()])
            .collect();
        let vecs = self.embed_all(&texts)?;
        Ok(vecs.chunks(2).map(|ab| cosine(&ab[0], &ab[1])).collect())
    }

    /// (texts embedded, requests answered from the cache) so far.
    pub fn counts(&self) -> (usize, usize) {
        (
            self.computed.load(Ordering::Relaxed),
            self.reused.load(Ordering::Relaxed),
        )
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Embedding>> {
        // A poisoned lock only means another thread panicked mid-insert; the
        // map itself is still consistent (inserts are whole).
        self.map.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Cosine similarity of two vectors (0 when either is zero), in f64.
pub fn cosine(a: &[f32], b: &[f32]) -> f64 {
    let (mut dot, mut na, mut nb) = (0f64, 0f64, 0f64);
    for (x, y) in a.iter().zip(b) {
        let (x, y) = (*x as f64, *y as f64);
        dot += x * y;
        na += x * x;
        nb += y * y;
    }
    if na == 0.0 || nb == 0.0 {
        0.0
    } else {
        dot / (na.sqrt() * nb.sqrt())
    }
}

#[cfg(test)]
mod tests {
    use super::cosine;

    #[test]
    fn cosine_basics() {
        assert!((cosine(&[1.0, 0.0], &[1.0, 0.0]) - 1.0).abs() < 1e-12);
        assert!(cosine(&[1.0, 0.0], &[0.0, 2.0]).abs() < 1e-12);
        assert!((cosine(&[1.0, 1.0], &[-1.0, -1.0]) + 1.0).abs() < 1e-12);
        assert_eq!(cosine(&[0.0, 0.0], &[1.0, 0.0]), 0.0);
    }
}
