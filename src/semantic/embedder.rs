//! all-MiniLM-L6-v2 (or any BERT sentence-transformers model in the Hugging
//! Face layout) in pure Rust: candle's BERT, the `tokenizers` crate, mean
//! pooling over the attention mask, L2 normalization.
//!
//! Texts are tokenized one by one (truncated at the model's maximum, 256
//! tokens for all-MiniLM-L6-v2, never padded to a fixed length), sorted by
//! length and cut into batches padded to their longest member, so little
//! work goes into padding; batches run in parallel on the rayon pool.

use super::bert::FusedBert;
use super::SemanticError;
use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;
use tokenizers::{Tokenizer, TruncationDirection, TruncationParams, TruncationStrategy};

/// Tokens per text when the folder does not say (sentence-transformers'
/// `max_seq_length` for all-MiniLM-L6-v2).
pub(crate) const DEFAULT_MAX_TOKENS: usize = 256;
/// Padded tokens (batch size x longest length) per batch: keeps matrices
/// large enough for the GEMM kernels and small enough for the cache.
const TOKENS_PER_BATCH: usize = 2048;
/// Most texts in one batch.
const MAX_BATCH: usize = 128;

/// Which implementation of the BERT forward pass runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum EngineKind {
    /// The fused pass of `super::bert::FusedBert` on candle tensors (default, ~2x faster).
    #[default]
    Fused,
    /// candle-transformers' `BertModel`, unchanged (the reference).
    CandleBert,
}

impl EngineKind {
    /// The name used in signatures.
    pub fn as_str(self) -> &'static str {
        match self {
            EngineKind::Fused => "candle-fused",
            EngineKind::CandleBert => "candle-bert",
        }
    }
}

/// The forward pass in use.
enum Engine {
    Fused(FusedBert),
    CandleBert(BertModel),
}

/// A loaded sentence-embedding model.
pub struct Embedder {
    engine: Engine,
    tokenizer: Tokenizer,
    device: Device,
    dir: PathBuf,
    name: String,
    dim: usize,
    max_tokens: usize,
    digest: OnceLock<String>,
    truncated: AtomicUsize,
}

impl std::fmt::Debug for Embedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Embedder")
            .field("dir", &self.dir)
            .field("name", &self.name)
            .field("dim", &self.dim)
            .field("max_tokens", &self.max_tokens)
            .finish()
    }
}

/// One text's token ids, truncated, with the special tokens.
struct Tokens {
    ids: Vec<u32>,
}

impl Embedder {
    /// Loads the model folder: config.json, tokenizer.json (its fixed
    /// padding is replaced by per-batch padding, its truncation by the
    /// model's maximum), model.safetensors, and when present
    /// sentence_bert_config.json (`max_seq_length`) and
    /// 1_Pooling/config.json (mean pooling is the only mode supported).
    pub fn load(dir: &Path) -> Result<Embedder, SemanticError> {
        Embedder::load_with(dir, EngineKind::Fused)
    }

    /// Loads the model folder (see [`Embedder::load`]) to run on `engine`.
    pub fn load_with(dir: &Path, engine: EngineKind) -> Result<Embedder, SemanticError> {
        let bad = |file: &str, message: String| SemanticError::BadModel {
            path: dir.join(file),
            message,
        };
        let config_text = std::fs::read_to_string(dir.join("config.json"))
            .map_err(|e| bad("config.json", e.to_string()))?;
        let config: Config =
            serde_json::from_str(&config_text).map_err(|e| bad("config.json", e.to_string()))?;
        let max_tokens = read_max_seq_length(dir)?
            .unwrap_or(DEFAULT_MAX_TOKENS)
            .min(config.max_position_embeddings);
        check_pooling(dir)?;

        let mut tokenizer = Tokenizer::from_file(dir.join("tokenizer.json"))
            .map_err(|e| bad("tokenizer.json", e.to_string()))?;
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(Some(TruncationParams {
                direction: TruncationDirection::Right,
                max_length: max_tokens,
                strategy: TruncationStrategy::LongestFirst,
                stride: 0,
            }))
            .map_err(|e| bad("tokenizer.json", e.to_string()))?;

        let device = Device::Cpu;
        let weights = dir.join("model.safetensors");
        // SAFETY: the weights file is mapped read-only for the model's
        // lifetime; like any tool that maps its inputs, it assumes the file
        // is not truncated while the command runs.
        let vb = unsafe { VarBuilder::from_mmaped_safetensors(&[&weights], DType::F32, &device) }
            .map_err(|e| bad("model.safetensors", e.to_string()))?;
        let engine = match engine {
            EngineKind::Fused => FusedBert::load(vb, &config).map(Engine::Fused),
            EngineKind::CandleBert => BertModel::load(vb, &config).map(Engine::CandleBert),
        }
        .map_err(|e| bad("model.safetensors", e.to_string()))?;
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .filter(|n| !n.is_empty() && !n.chars().all(|c| c.is_ascii_hexdigit()))
            .unwrap_or_else(|| super::model_dir::DEFAULT_MODEL.to_string());
        Ok(Embedder {
            engine,
            tokenizer,
            device,
            dir: dir.to_path_buf(),
            name,
            dim: config.hidden_size,
            max_tokens,
            digest: OnceLock::new(),
            truncated: AtomicUsize::new(0),
        })
    }

    /// The model's name (its folder's name, e.g. "all-MiniLM-L6-v2").
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The model folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Embedding dimension (384 for all-MiniLM-L6-v2).
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Tokens per text; longer texts are truncated.
    pub fn max_tokens(&self) -> usize {
        self.max_tokens
    }

    /// SHA-256 of model.safetensors (hex), computed once on first use.
    pub fn digest(&self) -> &str {
        self.digest.get_or_init(
            || match std::fs::File::open(self.dir.join("model.safetensors")) {
                Ok(mut f) => {
                    use sha2::Digest;
                    let mut h = sha2::Sha256::new();
                    match std::io::copy(&mut f, &mut h) {
                        Ok(_) => format!("{:x}", h.finalize()),
                        Err(_) => "unreadable".into(),
                    }
                }
                Err(_) => "unreadable".into(),
            },
        )
    }

    /// The settings that determine the embeddings, sacrebleu style.
    pub fn signature(&self) -> String {
        format!(
            "model:{}|pool:mean|norm:l2|max_tokens:{}|dim:{}|engine:{}-{}",
            self.name,
            self.max_tokens,
            self.dim,
            self.engine_kind().as_str(),
            CANDLE_VERSION
        )
    }

    /// The forward pass in use.
    pub fn engine_kind(&self) -> EngineKind {
        match self.engine {
            Engine::Fused(_) => EngineKind::Fused,
            Engine::CandleBert(_) => EngineKind::CandleBert,
        }
    }

    /// Number of tokens (special tokens included, after truncation) of
    /// `text`.
    pub fn token_count(&self, text: &str) -> Result<usize, SemanticError> {
        Ok(self.tokenize(text)?.ids.len())
    }

    /// Texts cut at [`Embedder::max_tokens`] so far (each embedding of a
    /// too-long text counts once).
    pub fn truncated_texts(&self) -> usize {
        self.truncated.load(Ordering::Relaxed)
    }

    fn tokenize(&self, text: &str) -> Result<Tokens, SemanticError> {
        let enc = self
            .tokenizer
            .encode_fast(text, true)
            .map_err(|e| SemanticError::Inference {
                message: format!("tokenizing: {e}"),
            })?;
        if !enc.get_overflowing().is_empty() {
            self.truncated.fetch_add(1, Ordering::Relaxed);
        }
        Ok(Tokens {
            ids: enc.get_ids().to_vec(),
        })
    }

    /// Embeds one text (unit length).
    pub fn embed_one(&self, text: &str) -> Result<Vec<f32>, SemanticError> {
        let mut v = self.embed(&[text])?;
        v.pop().ok_or_else(|| SemanticError::Inference {
            message: "no embedding returned".into(),
        })
    }

    /// Embeds `texts` (unit-length vectors, in input order).
    pub fn embed<S: AsRef<str> + Sync>(&self, texts: &[S]) -> Result<Vec<Vec<f32>>, SemanticError> {
        let tokens: Vec<Tokens> = texts
            .par_iter()
            .map(|t| self.tokenize(t.as_ref()))
            .collect::<Result<_, _>>()?;
        let mut order: Vec<usize> = (0..tokens.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(tokens[i].ids.len()));
        let batches = plan_batches(&order, |i| tokens[i].ids.len(), TOKENS_PER_BATCH);
        let run = |batch: &Vec<usize>| {
            let members: Vec<&[u32]> = batch.iter().map(|&i| &tokens[i].ids[..]).collect();
            let out = self.forward_batch(&members);
            crate::progress::advance(batch.len() as u64);
            out
        };
        crate::progress::start("embedding", texts.len() as u64);
        let results = batches.par_iter().map(run).collect::<Result<Vec<_>, _>>();
        crate::progress::finish();
        let results: Vec<Vec<Vec<f32>>> = results?;
        let mut out: Vec<Vec<f32>> = vec![Vec::new(); texts.len()];
        for (batch, vecs) in batches.iter().zip(results) {
            for (&i, v) in batch.iter().zip(vecs) {
                out[i] = v;
            }
        }
        Ok(out)
    }

    /// Runs the model on one batch padded to its longest member; returns
    /// mean-pooled, L2-normalized embeddings.
    fn forward_batch(&self, members: &[&[u32]]) -> Result<Vec<Vec<f32>>, SemanticError> {
        let infer = |e: candle_core::Error| SemanticError::Inference {
            message: e.to_string(),
        };
        let b = members.len();
        let len = members.iter().map(|m| m.len()).max().unwrap_or(0).max(1);
        let hidden: Vec<f32> = match &self.engine {
            Engine::Fused(model) => model.forward(members).map_err(infer)?,
            Engine::CandleBert(model) => {
                let mut ids = vec![0u32; b * len];
                let mut mask = vec![0u32; b * len];
                for (row, m) in members.iter().enumerate() {
                    ids[row * len..row * len + m.len()].copy_from_slice(m);
                    mask[row * len..row * len + m.len()].fill(1);
                }
                let ids = Tensor::from_vec(ids, (b, len), &self.device).map_err(infer)?;
                let mask = Tensor::from_vec(mask, (b, len), &self.device).map_err(infer)?;
                let types = ids.zeros_like().map_err(infer)?;
                let out = model.forward(&ids, &types, Some(&mask)).map_err(infer)?;
                out.flatten_all().map_err(infer)?.to_vec1().map_err(infer)?
            }
        };
        let dim = self.dim;
        Ok(members
            .iter()
            .enumerate()
            .map(|(row, m)| {
                // Mean over the real tokens (padding sits after them).
                let count = m.len().max(1);
                let mut acc = vec![0f32; dim];
                for t in 0..count {
                    let base = (row * len + t) * dim;
                    for (a, h) in acc.iter_mut().zip(&hidden[base..base + dim]) {
                        *a += h;
                    }
                }
                acc.iter_mut().for_each(|a| *a /= count as f32);
                l2_normalize(&mut acc);
                acc
            })
            .collect())
    }
}

/// candle's version, for signatures.
const CANDLE_VERSION: &str = "0.11.1";

/// Cuts `order` (indices sorted by decreasing length) into consecutive
/// batches whose padded size stays within the token budget.
fn plan_batches(
    order: &[usize],
    len_of: impl Fn(usize) -> usize,
    budget: usize,
) -> Vec<Vec<usize>> {
    let mut batches = Vec::new();
    let mut current: Vec<usize> = Vec::new();
    let mut longest = 0;
    for &i in order {
        let l = len_of(i).max(1);
        let new_longest = longest.max(l);
        if !current.is_empty()
            && (current.len() >= MAX_BATCH || new_longest * (current.len() + 1) > budget)
        {
            batches.push(std::mem::take(&mut current));
            longest = 0;
        }
        longest = longest.max(l);
        current.push(i);
    }
    if !current.is_empty() {
        batches.push(current);
    }
    batches
}

/// Scales `v` to unit length (a zero vector stays zero).
pub(crate) fn l2_normalize(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12);
    v.iter_mut().for_each(|x| *x /= norm);
}

/// `max_seq_length` from sentence_bert_config.json, when the file exists.
fn read_max_seq_length(dir: &Path) -> Result<Option<usize>, SemanticError> {
    let path = dir.join("sentence_bert_config.json");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(None);
    };
    let v: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| SemanticError::BadModel {
            path: path.clone(),
            message: e.to_string(),
        })?;
    Ok(v.get("max_seq_length")
        .and_then(|m| m.as_u64())
        .map(|m| m as usize))
}

/// Refuses a pooling configuration other than mean pooling.
fn check_pooling(dir: &Path) -> Result<(), SemanticError> {
    let path = dir.join("1_Pooling").join("config.json");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(());
    };
    let v: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| SemanticError::BadModel {
            path: path.clone(),
            message: e.to_string(),
        })?;
    let flag = |k: &str| v.get(k).and_then(|b| b.as_bool()).unwrap_or(false);
    if flag("pooling_mode_mean_tokens")
        && !flag("pooling_mode_cls_token")
        && !flag("pooling_mode_max_tokens")
    {
        Ok(())
    } else {
        Err(SemanticError::BadModel {
            path,
            message: "only mean pooling (pooling_mode_mean_tokens) is supported".into(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_respect_the_token_budget() {
        let lens = [1500usize, 700, 20, 20, 20, 10, 5, 5];
        let order: Vec<usize> = (0..lens.len()).collect();
        let batches = plan_batches(&order, |i| lens[i], TOKENS_PER_BATCH);
        let flat: Vec<usize> = batches.iter().flatten().copied().collect();
        assert_eq!(flat, order);
        for b in &batches {
            let longest = b.iter().map(|&i| lens[i]).max().unwrap();
            assert!(b.len() == 1 || longest * b.len() <= TOKENS_PER_BATCH);
        }
        assert_eq!(batches[0], vec![0]);
    }

    #[test]
    fn normalizes_to_unit_length() {
        let mut v = vec![3.0, 4.0];
        l2_normalize(&mut v);
        assert!((v[0] - 0.6).abs() < 1e-6 && (v[1] - 0.8).abs() < 1e-6);
        let mut z = vec![0.0, 0.0];
        l2_normalize(&mut z);
        assert_eq!(z, vec![0.0, 0.0]);
    }
}
