//! The in-process side of `scripts/bench-lexical`: reads prediction/
//! reference pairs (JSON Lines, `prediction` and `reference`), then times
//! only the scoring, on the calling thread (no rayon), as the peer script
//! times rouge-score and sacrebleu: ROUGE-1/2/L per pair, corpus BLEU
//! (13a, exp) and corpus chrF. Prints one JSON object.
//!
//!     cargo run --release --example lexical_kernel -- PAIRS.jsonl [rouge|bleu|chrf]

use corpus_eval::lexical::bleu::{Bleu, Stats};
use corpus_eval::lexical::chrf;
use corpus_eval::lexical::rouge::{RougeType, Scorer};
use std::time::Instant;

// The allocator the command-line tool uses.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args()
        .nth(1)
        .ok_or("usage: lexical_kernel PAIRS.jsonl")?;
    let text = std::fs::read_to_string(path)?;
    let mut pairs: Vec<(String, String)> = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let v: serde_json::Value = serde_json::from_str(line)?;
        let p = v["prediction"].as_str().ok_or("prediction")?.to_string();
        let r = v["reference"].as_str().ok_or("reference")?.to_string();
        pairs.push((p, r));
    }
    let n = pairs.len() as f64;
    // An optional second argument times one part only (for profiling).
    let only = std::env::args().nth(2).unwrap_or_default();
    let all = pairs.clone();
    let part = |name: &str| -> &[(String, String)] {
        if only.is_empty() || only == name {
            &all
        } else {
            &[]
        }
    };

    let t = Instant::now();
    let scorer = Scorer::new(vec![RougeType::N(1), RougeType::N(2), RougeType::L], false);
    let mut sums = [0.0f64; 3];
    for (p, r) in part("rouge") {
        let s = scorer.score(r, p);
        for k in 0..3 {
            sums[k] += s[k].fmeasure;
        }
    }
    let rouge_s = t.elapsed().as_secs_f64();

    let t = Instant::now();
    let bleu = Bleu::default();
    let mut total = Stats::default();
    for (p, r) in part("bleu") {
        total += bleu.stats(p, &[r]);
    }
    let bleu_score = bleu.score(&total, false);
    let bleu_s = t.elapsed().as_secs_f64();

    let t = Instant::now();
    let mut ctotal = [[0u64; 3]; chrf::CHAR_ORDER];
    for (p, r) in part("chrf") {
        chrf::add(&mut ctotal, &chrf::stats(p, &[r]));
    }
    let chrf_score = chrf::score(&ctotal);
    let chrf_s = t.elapsed().as_secs_f64();

    println!(
        "{}",
        serde_json::json!({
            "n": pairs.len(),
            "rouge_s": rouge_s, "bleu_s": bleu_s, "chrf_s": chrf_s,
            "rouge1": sums[0] / n, "rouge2": sums[1] / n, "rougeL": sums[2] / n,
            "bleu": bleu_score, "chrf": chrf_score,
        })
    );
    Ok(())
}
