//! Criterion benchmarks of the hot paths: lexicon load, List scoring,
//! exact/normalized quote checks, fuzzy quote search at scale, sentence
//! embeddings (both forward passes; needs `scripts/fetch-model`), grounding
//! metrics, the text evaluator and the lossless fuzzy search's word-piece
//! bound (`word_pieces`).
//!
//! Run: `cargo bench --bench hot_paths` (or one group: `cargo bench -- fuzzy`).

use corpus_eval::citations::SourceText;
use corpus_eval::lexicon::Lexicon;
use corpus_eval::scoring::{Analyzer, CompiledQuestion};
use corpus_eval::stats::SplitMix64;
use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use rayon::prelude::*;
use serde_json::json;

/// The sample transcripts' text, repeated with a counter so copies differ,
/// until it reaches `bytes`.
fn transcript_text(bytes: usize) -> String {
    let corpus: serde_json::Value =
        serde_json::from_str(include_str!("../datasets/corpus.json")).expect("sample corpus");
    let chunks: Vec<&str> = corpus
        .as_array()
        .expect("array")
        .iter()
        .filter_map(|c| c["page_content"].as_str())
        .collect();
    let mut out = String::with_capacity(bytes + 4096);
    let mut k = 0usize;
    while out.len() < bytes {
        for c in &chunks {
            out.push_str(&format!("[{k}] "));
            out.push_str(c);
            out.push('\n');
        }
        k += 1;
    }
    out
}

/// ~20-word quotes cut from `text` at random, half of them reworded (a word
/// dropped, a letter changed), a tenth invented.
fn quotes(text: &str, n: usize, seed: u64) -> Vec<String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut rng = SplitMix64::new(seed);
    (0..n)
        .map(|i| {
            let start = rng.below(words.len() - 25);
            let mut q: Vec<String> = words[start..start + 20]
                .iter()
                .map(|w| w.to_string())
                .collect();
            match i % 10 {
                0 => q.iter_mut().for_each(|w| *w = w.chars().rev().collect()),
                1..=5 => {
                    q.remove(7);
                    if let Some(w) = q.get_mut(12) {
                        w.push('x');
                    }
                }
                _ => {}
            }
            q.join(" ")
        })
        .collect()
}

fn lexicon_load(c: &mut Criterion) {
    c.bench_function("lexicon/embedded_load", |b| {
        b.iter(|| Lexicon::embedded().expect("loads"))
    });
}

fn list_scoring(c: &mut Criterion) {
    let lex = Lexicon::embedded().expect("loads");
    let answers = [
        "Mostly potatoes, leeks and some kale, plus rhubarb in the spring.",
        "They grow spuds and leeks; the tomatoes failed after the greenhouse blew down.",
        "I think it was kale, but honestly the garden is about community more than food.",
        "Twenty-one households grow vegetables, mainly potatoes.",
        "Nothing that I remember.",
        "Carrots and onions were tried in 2019 but the slugs ate everything.",
    ];
    let mut group = c.benchmark_group("scoring");
    for t in ["ListOne", "ListMany"] {
        let q = CompiledQuestion::compile(
            t,
            &json!({"values": ["potato", "leek", "kale", "rhubarb", "21"], "weights": [0.3, 0.3, 0.2, 0.2, 0.1]}),
            &lex,
        )
        .expect("compiles");
        let mut analyzer = Analyzer::new(&lex);
        group.throughput(Throughput::Elements(answers.len() as u64));
        group.bench_function(t, |b| {
            b.iter(|| {
                answers
                    .iter()
                    .map(|a| q.score(a, &mut analyzer))
                    .sum::<f64>()
            })
        });
    }
    group.finish();
}

fn exact_normalized(c: &mut Criterion) {
    let text = transcript_text(8 << 20);
    // A quote near the end, typed with plain quotes and no diacritics: the
    // normalized step must normalize the whole transcript to find it.
    let tail: String = text[text.len() - 3000..]
        .chars()
        .skip(100)
        .take(120)
        .collect();
    let exact_quote = tail.clone();
    let normalized_quote = tail.to_uppercase();
    let mut group = c.benchmark_group("quotes");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("exact", |b| {
        b.iter_batched(
            || SourceText::new(text.clone()),
            |s| s.check(&exact_quote, 0.9),
            BatchSize::LargeInput,
        )
    });
    group.bench_function("normalized", |b| {
        b.iter_batched(
            || SourceText::new(text.clone()),
            |s| s.check(&normalized_quote, 0.9),
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

/// Every occurrence of k quotes in a 750 KB transcript: one substring
/// search per quote against one pass for all of them (`MultiFind`), for the
/// quote count from which the pass wins (`citations::BATCH_MIN`).
fn lookup_per_transcript(c: &mut Criterion) {
    let text = transcript_text(750_000);
    let all = quotes(&text, 800, 11);
    let mut group = c.benchmark_group("lookup");
    group.sample_size(20);
    for k in [4usize, 8, 12, 16, 32, 750] {
        let qs: Vec<&str> = all.iter().take(k).map(String::as_str).collect();
        group.bench_function(format!("memmem_per_quote/{k}"), |b| {
            b.iter(|| {
                qs.iter()
                    .map(|q| memchr::memmem::find_iter(text.as_bytes(), q.as_bytes()).count())
                    .sum::<usize>()
            })
        });
        group.bench_function(format!("one_pass/{k}"), |b| {
            b.iter(|| {
                corpus_eval::text::MultiFind::new(&qs)
                    .find(&text, false)
                    .iter()
                    .map(Vec::len)
                    .sum::<usize>()
            })
        });
    }
    group.finish();
}

/// 10k quotes of ~20 words against 50 MB of transcripts (10 transcripts of
/// 5 MB), in parallel, index building included.
fn fuzzy_at_scale(c: &mut Criterion) {
    let texts: Vec<String> = (0..10)
        .map(|i| transcript_text(5 << 20) + &format!("{i}"))
        .collect();
    let qs: Vec<(usize, String)> = quotes(&texts[0], 10_000, 7)
        .into_iter()
        .enumerate()
        .map(|(i, q)| (i % 10, q))
        .collect();
    let mut group = c.benchmark_group("fuzzy");
    group.sample_size(10);
    group.throughput(Throughput::Elements(qs.len() as u64));
    group.bench_function("10k_quotes_50MB", |b| {
        b.iter_batched(
            || {
                texts
                    .iter()
                    .map(|t| SourceText::new(t.clone()))
                    .collect::<Vec<_>>()
            },
            |sources| {
                qs.par_iter()
                    .map(|(i, q)| sources[*i].check(q, 0.9).similarity)
                    .sum::<f64>()
            },
            BatchSize::PerIteration,
        )
    });
    group.finish();
}

/// The start-tracking table that verifies quotes matching nowhere well:
/// 500 quotes of 60-180 chars against windows twice their length plus up to
/// 100 chars (the shape of an invented quote's windows), cut from unrelated
/// places of the sample text, with the strips this CPU runs and with the
/// portable ones.
fn fuzzy_table(c: &mut Criterion) {
    use corpus_eval::citations::fuzzy::lanes;
    // Quotes and windows cut from unrelated places of the sample
    // transcripts' text (a quote that matches nowhere well).
    let text: Vec<char> = transcript_text(1 << 20).chars().collect();
    let mut rng = SplitMix64::new(7);
    let mut cut = |len: usize| -> Vec<char> {
        let at = rng.below(text.len() - len);
        text[at..at + len].to_vec()
    };
    let cases: Vec<(Vec<char>, Vec<char>)> = (0..500)
        .map(|k| {
            let m = 60 + (k * 37) % 121;
            (cut(m), cut(2 * m + (k * 53) % 100))
        })
        .collect();
    let cells: usize = cases.iter().map(|(q, t)| q.len() * t.len()).sum();
    let mut group = c.benchmark_group("fuzzy_table");
    group.throughput(Throughput::Elements(cells as u64));
    type Table = fn(&[char], &[char]) -> Vec<u64>;
    let tables: [(&str, Table); 2] = [
        ("dispatched", lanes::table),
        ("portable", lanes::portable_table),
    ];
    for (name, table) in tables {
        group.bench_function(name, |b| {
            b.iter(|| cases.iter().map(|(q, t)| table(q, t)[t.len()]).sum::<u64>())
        });
    }
    group.finish();
}

/// The word-piece bound of the lossless fuzzy search (issue 55) on text
/// like `scripts/gen-evaluate.py`'s: a 750,000-char transcript of an
/// 81-word vocabulary, and 400 invented quotes of 6-16 of its words (each
/// must be proved to have no passage at or above 0.8). `tables`: the
/// per-transcript tables of the pieces the quotes share; `pass`: each
/// quote's pass over the blocks and its windows.
fn word_pieces(c: &mut Criterion) {
    use corpus_eval::citations::fuzzy::{qgram, wordbound::Tables};
    const WORDS: &str = "garden cooperative harvest market neighbours council landlord repair \
        bicycle toaster river boat fish clams crab water summer winter rent meeting board \
        volunteers tools money school children families tenants committee village mill factory \
        farm tractor potatoes leeks kale rhubarb soil rain drought flood road bus train bridge \
        church hall library park festival music dance bread cheese wine olive lemon orange \
        forest hill mountain lake island harbour grew sold bought repaired opened closed \
        started stopped built shared paid asked told moved lived worked";
    let vocab: Vec<&str> = WORDS.split_whitespace().collect();
    let mut rng = SplitMix64::new(55);
    let sentence = |rng: &mut SplitMix64| -> String {
        let n = 6 + rng.below(11);
        (0..n)
            .map(|_| vocab[rng.below(vocab.len())])
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut text = String::new();
    while text.len() < 750_000 {
        text.push_str(&sentence(&mut rng));
        text.push(' ');
    }
    let quotes: Vec<Vec<char>> = (0..400)
        .map(|_| sentence(&mut rng).chars().collect())
        .collect();
    let mut group = c.benchmark_group("word_pieces");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("tables_750k", |b| {
        b.iter(|| Tables::new(&text, &quotes).map_or(0, |t| t.len()))
    });
    let tables = Tables::new(&text, &quotes).expect("shared pieces");
    group.throughput(Throughput::Elements(quotes.len() as u64));
    group.bench_function("pass_400_quotes", |b| {
        b.iter(|| {
            quotes
                .iter()
                .map(|q| {
                    let k = qgram::max_edits(q.len(), 0.8);
                    tables.candidates(q, &text, k).map_or(0, |w| w.len())
                })
                .sum::<usize>()
        })
    });
    group.finish();
}

/// 512 distinct short sentences (~18 tokens), like `scripts/gen-sentences.py`.
fn sentences(n: usize) -> Vec<String> {
    let subjects = [
        "The farmer",
        "A teacher",
        "The cooperative",
        "Her grandmother",
        "The committee",
    ];
    let verbs = [
        "described",
        "remembered",
        "criticised",
        "praised",
        "explained",
    ];
    let objects = [
        "the potato harvest",
        "the irrigation channel",
        "the price of seed",
        "the school garden",
    ];
    let mut rng = SplitMix64::new(42);
    (0..n)
        .map(|i| {
            format!(
                "{} {} {} in interview {i}, {} days after the flood.",
                subjects[rng.below(subjects.len())],
                verbs[rng.below(verbs.len())],
                objects[rng.below(objects.len())],
                rng.below(300)
            )
        })
        .collect()
}

fn embeddings(c: &mut Criterion) {
    use corpus_eval::semantic::{Embedder, EngineKind};
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models/all-MiniLM-L6-v2");
    let texts = sentences(512);
    let mut group = c.benchmark_group("embed");
    group.sample_size(10);
    group.throughput(Throughput::Elements(texts.len() as u64));
    for engine in [EngineKind::Fused, EngineKind::CandleBert] {
        let model = Embedder::load_with(&dir, engine).unwrap_or_else(|e| {
            panic!("the embedding benchmark needs the model (scripts/fetch-model): {e}")
        });
        group.bench_function(format!("512_sentences_{}", engine.as_str()), |b| {
            b.iter(|| model.embed(&texts).expect("embed"))
        });
    }
    group.finish();
}

/// Grounding rows shaped like the issue's: ~100-word responses, ~1,000-word
/// contexts (two passages) cut from the sample transcripts, with numbers
/// and dates mixed in.
fn grounding_rows(n: usize) -> Vec<corpus_eval::grounding::GroundingRow> {
    let text = transcript_text(400_000);
    let words: Vec<&str> = text.split_whitespace().collect();
    let extras = [
        "in 1987",
        "on March 3, 2021",
        "$5 million",
        "twenty-one",
        "1,000",
        "at 9 am",
    ];
    let mut rng = SplitMix64::new(7);
    (0..n)
        .map(|i| {
            let start = rng.below(words.len() - 1100);
            let ctx: Vec<&str> = words[start..start + 1000].to_vec();
            let cut = rng.below(900);
            let mut resp: Vec<&str> = words[start + cut..start + cut + 90].to_vec();
            resp.push(extras[i % extras.len()]);
            resp.extend(["The", "project", "employs", "engineers."]);
            corpus_eval::grounding::GroundingRow {
                id: format!("g{i}"),
                query: words[start + cut..start + cut + 12].join(" ") + "?",
                response: resp.join(" "),
                context: vec![ctx[..500].join(" "), ctx[500..].join(" ")],
            }
        })
        .collect()
}

fn grounding(c: &mut Criterion) {
    let lexicon = Lexicon::embedded().expect("lexicon");
    let rows = grounding_rows(2000);
    let mut group = c.benchmark_group("grounding");
    group.sample_size(10);
    group.throughput(Throughput::Elements(rows.len() as u64));
    group.bench_function("2000_rows_100w_response_1000w_context", |b| {
        b.iter(|| {
            rows.par_iter()
                .map(|r| corpus_eval::grounding::evaluate(&lexicon, r))
                .collect::<Vec<_>>()
        })
    });
    group.finish();
}

fn text_eval(c: &mut Criterion) {
    use corpus_eval::texteval::*;
    let lexicon = Lexicon::embedded().expect("lexicon");
    let sample =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("evaluation/text-eval/sample.json");
    let base = load_text_rows(&sample).expect("sample rows");
    let rows: Vec<TextRow> = (0..2000)
        .map(|i| {
            let mut r = base[i % base.len()].clone();
            r.id = format!("r{i}");
            r.response.push_str(&format!(" Note {i}."));
            r
        })
        .collect();
    let patterns = Patterns::bundled();
    let (weights, thresholds) = (Weights::default(), Thresholds::default());
    let mut group = c.benchmark_group("text_eval");
    group.sample_size(10);
    group.throughput(Throughput::Elements(rows.len() as u64));
    for profile in [Profile::Reference, Profile::Standard] {
        group.bench_function(
            format!("2000_rows_{}_fallback_semantics", profile.as_str()),
            |b| {
                b.iter(|| {
                    let space = fallback_space(&rows);
                    let evaluator = Evaluator {
                        profile,
                        lexicon: &lexicon,
                        patterns: &patterns,
                        weights: &weights,
                        thresholds: &thresholds,
                        relevance_space: relevance_space(profile, &rows),
                    };
                    rows.par_iter()
                        .map(|r| {
                            let sem = SemanticPair {
                                similarity: space.cosine(&r.reference, &r.response),
                                relevance: space.cosine(&r.question, &r.response),
                            };
                            evaluator.evaluate(r, sem)
                        })
                        .collect::<Vec<_>>()
                })
            },
        );
    }
    group.finish();
}

/// 1M items x 3 raters, 5 values, ~10% missing: every coefficient without
/// the bootstrap (the goal: under 2 s), and the 2,000-resample
/// bootstrap on 10,000 items.
fn agreement(c: &mut Criterion) {
    use corpus_eval::agreement::{agreement, Settings};
    use corpus_eval::agreement::{Level, Ratings};
    let table = |n: usize| {
        let mut rng = corpus_eval::stats::SplitMix64::new(9);
        let mut cells = Vec::with_capacity(n * 3);
        for _ in 0..n {
            let truth = rng.below(5) as f64;
            for _ in 0..3 {
                cells.push(match rng.below(10) {
                    0 => None,
                    1 | 2 => Some(rng.below(5) as f64),
                    _ => Some(truth),
                });
            }
        }
        Ratings::numeric(
            (0..n).map(|i| format!("item-{i}")).collect(),
            vec!["a".into(), "b".into(), "c".into()],
            Level::Ordinal,
            cells,
        )
        .unwrap()
    };
    let mut group = c.benchmark_group("agreement");
    group.sample_size(10);
    let big = table(1_000_000);
    group.throughput(Throughput::Elements(1_000_000));
    group.bench_function("1M x 3 raters, all coefficients, no bootstrap", |b| {
        b.iter(|| {
            agreement(
                &big,
                &Settings {
                    resamples: 0,
                    seed: 42,
                },
            )
        })
    });
    let small = table(10_000);
    group.throughput(Throughput::Elements(10_000));
    group.bench_function("10k x 3 raters, 2000 resamples", |b| {
        b.iter(|| agreement(&small, &Settings::default()))
    });
    group.finish();
}

/// check-report's quote finding on 1 MB reports: prose with closed
/// quotes, and one paragraph of marks never closed (every kind), which was
/// quadratic (a 360 KB paragraph took 81 s). Linear now: compare the
/// two inputs' times per byte, and 256 KB against 1 MB.
fn report_quotes(c: &mut Criterion) {
    use corpus_eval::check_report::{find_with, Options};
    let mut group = c.benchmark_group("report_quotes");
    group.sample_size(10);
    let prose = |bytes: usize| {
        let mut r = String::new();
        while r.len() < bytes {
            r.push_str("Gwen said that “we never went back to the old house” (P3). She felt it was true.\n\n");
        }
        r
    };
    let unclosed = |bytes: usize| {
        let mut r = String::new();
        while r.len() < bytes {
            r.push_str("\"a b c d “e f „g «h »i `j <k ](l (m ");
        }
        r
    };
    let options = Options::default();
    for (name, text) in [
        ("prose_1MB", prose(1 << 20)),
        ("unclosed_256KB", unclosed(256 << 10)),
        ("unclosed_1MB", unclosed(1 << 20)),
    ] {
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function(name, |b| {
            b.iter(|| find_with(&text, &options, &|w: &str| w == "Gwen").len())
        });
    }
    group.finish();
}

criterion_group!(
    benches,
    report_quotes,
    agreement,
    grounding,
    text_eval,
    lexicon_load,
    list_scoring,
    exact_normalized,
    lookup_per_transcript,
    fuzzy_at_scale,
    fuzzy_table,
    word_pieces,
    embeddings
);
criterion_main!(benches);
