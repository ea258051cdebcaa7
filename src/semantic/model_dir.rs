//! Finding the embedding model's folder (Hugging Face layout: config.json,
//! tokenizer.json, model.safetensors).
//!
//! Resolution order: `--model-dir`, then `$CORPUS_EVAL_MODEL_DIR`, then
//! `models/all-MiniLM-L6-v2/` in the project (the working directory, then the
//! folder the crate was built from), then the Hugging Face cache (`$HF_HOME`,
//! default `~/.cache/huggingface`), downloading into it with hf-hub unless
//! `HF_HUB_OFFLINE=1`.

use super::SemanticError;
use std::path::{Path, PathBuf};

/// The model the toolkit uses by default.
pub(crate) const DEFAULT_MODEL: &str = "all-MiniLM-L6-v2";
/// Its repository on the Hugging Face Hub.
pub(crate) const DEFAULT_HUB_REPO: &str = "sentence-transformers/all-MiniLM-L6-v2";
/// Environment variable naming a model folder.
pub(crate) const MODEL_DIR_ENV: &str = "CORPUS_EVAL_MODEL_DIR";
/// The files a model folder must hold.
pub(crate) const REQUIRED_FILES: [&str; 3] = ["config.json", "tokenizer.json", "model.safetensors"];

/// Where a model folder was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelOrigin {
    /// `--model-dir`.
    Flag,
    /// `$CORPUS_EVAL_MODEL_DIR`.
    Env,
    /// `models/all-MiniLM-L6-v2/` in the project.
    Project,
    /// The Hugging Face cache.
    HfCache,
}

/// A model folder that holds every required file.
#[derive(Debug, Clone)]
pub struct ModelLocation {
    /// The folder.
    pub dir: PathBuf,
    /// How it was found.
    pub origin: ModelOrigin,
}

/// What the resolver looks at; the CLI fills it from flags and the
/// environment so the search itself reads no globals.
#[derive(Debug, Clone, Default)]
pub struct ModelSearch {
    /// `--model-dir`.
    pub flag: Option<PathBuf>,
    /// `$CORPUS_EVAL_MODEL_DIR`.
    pub env: Option<PathBuf>,
    /// Project folders to look in for `models/all-MiniLM-L6-v2/`.
    pub project_roots: Vec<PathBuf>,
    /// Look in (and, when `hub_download`, fill) the Hugging Face cache.
    pub hf_cache: bool,
    /// Download from the Hub into the cache when it lacks the model.
    pub hub_download: bool,
}

impl ModelSearch {
    /// The search a command-line run makes: `flag`, then the environment,
    /// then the working directory and the crate's own folder, then the
    /// Hugging Face cache (downloading unless `HF_HUB_OFFLINE` is set).
    pub fn from_env(flag: Option<PathBuf>) -> ModelSearch {
        let mut project_roots = Vec::new();
        if let Ok(cwd) = std::env::current_dir() {
            project_roots.push(cwd);
        }
        let built_in = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        if !project_roots.contains(&built_in) {
            project_roots.push(built_in);
        }
        let offline = std::env::var("HF_HUB_OFFLINE")
            .map(|v| !v.is_empty() && v != "0")
            .unwrap_or(false);
        ModelSearch {
            flag,
            env: std::env::var_os(MODEL_DIR_ENV)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from),
            project_roots,
            hf_cache: true,
            hub_download: !offline,
        }
    }

    /// Finds the model folder, or says everywhere it looked and how to get
    /// one. A folder named explicitly (flag or environment) that lacks a
    /// file is an error of its own: it is never skipped silently.
    pub fn resolve(&self) -> Result<ModelLocation, SemanticError> {
        let explicit = [
            (self.flag.as_ref(), ModelOrigin::Flag, "--model-dir"),
            (self.env.as_ref(), ModelOrigin::Env, MODEL_DIR_ENV),
        ];
        for (dir, origin, name) in explicit {
            if let Some(dir) = dir {
                return match missing_files(dir) {
                    None => Ok(ModelLocation {
                        dir: dir.clone(),
                        origin,
                    }),
                    Some(missing) => Err(SemanticError::IncompleteModel {
                        dir: dir.clone(),
                        named_by: name.to_string(),
                        missing,
                    }),
                };
            }
        }
        let mut tried = vec![
            "--model-dir (not given)".to_string(),
            format!("${MODEL_DIR_ENV} (not set)"),
        ];
        for root in &self.project_roots {
            let dir = root.join("models").join(DEFAULT_MODEL);
            if missing_files(&dir).is_none() {
                return Ok(ModelLocation {
                    dir,
                    origin: ModelOrigin::Project,
                });
            }
            tried.push(format!("{} (no model)", dir.display()));
        }
        if self.hf_cache {
            match hf_cache_lookup(self.hub_download) {
                Ok(dir) => {
                    return Ok(ModelLocation {
                        dir,
                        origin: ModelOrigin::HfCache,
                    })
                }
                Err(why) => tried.push(why),
            }
        }
        Err(SemanticError::NoModel { tried })
    }
}

/// The required files `dir` lacks, or `None` when it has them all.
fn missing_files(dir: &Path) -> Option<Vec<String>> {
    let missing: Vec<String> = REQUIRED_FILES
        .iter()
        .filter(|f| !dir.join(f).is_file())
        .map(|f| f.to_string())
        .collect();
    (!missing.is_empty()).then_some(missing)
}

/// The model's folder in the Hugging Face cache, downloaded into it first
/// when `download` and the cache lacks it; `Err` says what was tried.
fn hf_cache_lookup(download: bool) -> Result<PathBuf, String> {
    let cache = hf_hub::Cache::from_env();
    let repo = cache.model(DEFAULT_HUB_REPO.to_string());
    let cached: Option<Vec<PathBuf>> = REQUIRED_FILES.iter().map(|f| repo.get(f)).collect();
    if let Some(paths) = cached {
        if let Some(dir) = paths[0].parent() {
            return Ok(dir.to_path_buf());
        }
    }
    let where_ = format!(
        "Hugging Face cache {} ({DEFAULT_HUB_REPO} not cached",
        cache.path().display()
    );
    if !download {
        return Err(format!("{where_}; HF_HUB_OFFLINE is set, no download)"));
    }
    errln!("note: fetching {DEFAULT_HUB_REPO} from the Hugging Face Hub into its cache");
    let api = hf_hub::api::sync::ApiBuilder::from_cache(cache.clone())
        .with_progress(false)
        .build()
        .map_err(|e| format!("{where_}; download failed: {e})"))?;
    let api_repo = api.model(DEFAULT_HUB_REPO.to_string());
    let mut dir = None;
    for f in REQUIRED_FILES
        .iter()
        .chain(["sentence_bert_config.json", "1_Pooling/config.json"].iter())
    {
        match api_repo.get(f) {
            Ok(p) => {
                if dir.is_none() {
                    dir = p.parent().map(Path::to_path_buf);
                }
            }
            Err(e) if REQUIRED_FILES.contains(f) => {
                return Err(format!("{where_}; download of {f} failed: {e})"));
            }
            Err(_) => {}
        }
    }
    dir.ok_or_else(|| format!("{where_}; download gave no folder)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fake_model(dir: &Path) {
        std::fs::create_dir_all(dir).unwrap();
        for f in REQUIRED_FILES {
            std::fs::write(dir.join(f), b"x").unwrap();
        }
    }

    #[test]
    fn order_is_flag_env_project() {
        let tmp = tempfile::tempdir().unwrap();
        let a = tmp.path().join("a");
        let b = tmp.path().join("b");
        let root = tmp.path().join("proj");
        fake_model(&a);
        fake_model(&b);
        fake_model(&root.join("models").join(DEFAULT_MODEL));
        let mut s = ModelSearch {
            flag: Some(a.clone()),
            env: Some(b.clone()),
            project_roots: vec![root.clone()],
            hf_cache: false,
            hub_download: false,
        };
        assert_eq!(s.resolve().unwrap().origin, ModelOrigin::Flag);
        s.flag = None;
        let found = s.resolve().unwrap();
        assert_eq!((found.origin, found.dir), (ModelOrigin::Env, b));
        s.env = None;
        assert_eq!(s.resolve().unwrap().origin, ModelOrigin::Project);
        s.project_roots = vec![tmp.path().join("none")];
        let err = s.resolve().unwrap_err().to_string();
        assert!(err.contains("scripts/fetch-model"), "{err}");
        assert!(err.contains("none"), "{err}");
    }

    #[test]
    fn an_incomplete_named_folder_is_an_error() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("config.json"), b"{}").unwrap();
        let s = ModelSearch {
            flag: Some(tmp.path().to_path_buf()),
            ..ModelSearch::default()
        };
        let err = s.resolve().unwrap_err().to_string();
        assert!(err.contains("--model-dir"), "{err}");
        assert!(err.contains("model.safetensors"), "{err}");
        assert!(!err.contains("config.json,"), "{err}");
    }
}
