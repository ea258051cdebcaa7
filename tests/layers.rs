//! Issue 42: imports point down. No module below the jobs imports `jobs`
//! or `cli`; the base layer (`text`, `stats`, `signature`, `pool`) imports
//! nothing above it; process tuning (`sys`) is called by the program and
//! the jobs only, and the stages read no environment, clock or global. A test, so that an import pointing up fails
//! the build's tests the day it appears.

use crate::util::repo;
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let p = entry.path();
        if p.is_dir() {
            out.extend(rust_files(&p));
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
    out
}

/// `file` relative to `src`, with `/`.
fn relative(src: &Path, file: &Path) -> String {
    file.strip_prefix(src)
        .unwrap()
        .to_string_lossy()
        .replace('\\', "/")
}

/// The `crate::MODULE` paths a file names, outside comments.
fn imports(path: &Path) -> Vec<(usize, String)> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(i) = rest.find("crate::") {
            let after = &rest[i + 7..];
            let name: String = after
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            out.push((n + 1, name));
            rest = after;
        }
    }
    out
}

#[test]
fn issue_42_no_import_points_up_into_jobs_or_cli() {
    let src = repo().join("src");
    let mut up = Vec::new();
    for f in rust_files(&src) {
        let rel = relative(&src, &f);
        if rel.starts_with("jobs/")
            || rel.starts_with("cli/")
            || rel == "main.rs"
            || rel == "lib.rs"
        {
            continue;
        }
        for (line, module) in imports(&f) {
            if module == "jobs" || module == "cli" {
                up.push(format!("src/{rel}:{line}: crate::{module}"));
            }
        }
    }
    assert!(up.is_empty(), "imports pointing up:\n{}", up.join("\n"));
}

#[test]
fn issue_42_the_base_layer_imports_nothing_above_it() {
    let src = repo().join("src");
    let base = ["text", "stats", "signature", "test_rng", "pool"];
    let mut up = Vec::new();
    let mut files: Vec<PathBuf> = rust_files(&src.join("text"));
    files.extend(rust_files(&src.join("stats")));
    files.push(src.join("signature.rs"));
    files.push(src.join("pool.rs"));
    for f in files {
        for (line, module) in imports(&f) {
            if !base.contains(&module.as_str()) {
                up.push(format!("{}:{line}: crate::{module}", f.display()));
            }
        }
    }
    assert!(
        up.is_empty(),
        "base-layer imports pointing up:\n{}",
        up.join("\n")
    );
}

#[test]
fn issue_42_only_the_program_and_the_jobs_call_sys() {
    let src = repo().join("src");
    let mut calls = Vec::new();
    for f in rust_files(&src) {
        let rel = relative(&src, &f);
        if ["jobs/", "sys/"].iter().any(|d| rel.starts_with(d)) || rel == "lib.rs" {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            // The file primitives are for the writers and the corpus
            // loader (its `mapped` option) too.
            let io = (rel.starts_with("report/") || rel == "corpus/load.rs")
                && code.contains("crate::sys::io::");
            if code.contains("crate::sys") && !io {
                calls.push(format!("src/{rel}:{}: {}", n + 1, code.trim()));
            }
        }
    }
    assert!(
        calls.is_empty(),
        "sys called below the jobs:\n{}",
        calls.join("\n")
    );
}

#[test]
fn issue_42_the_stages_read_no_environment_clock_or_process_global() {
    let src = repo().join("src");
    let mut found = Vec::new();
    for stage in ["citations", "evaluate", "scoring"] {
        for f in rust_files(&src.join(stage)) {
            let text = std::fs::read_to_string(&f).unwrap();
            for (n, line) in text.lines().enumerate() {
                let code = line.split("//").next().unwrap_or("");
                for what in [
                    "env::var",
                    "Instant::now",
                    "SystemTime::now",
                    "timings::",
                    "give_back",
                    "static mut",
                    "libc::",
                ] {
                    if code.contains(what) {
                        found.push(format!("{}:{}: {what}", f.display(), n + 1));
                    }
                }
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// The layer of a top-level module, top (1) to bottom (7), as lib.rs
/// lists them; None for the crate root files.
fn layer(module: &str) -> Option<u8> {
    Some(match module {
        "cli" => 1,
        "jobs" => 2,
        "views" => 3,
        "agreement" | "check_report" | "compare" | "evaluate" | "gates" | "grounding"
        | "hotpot" | "judge_answers" | "lexical" | "texteval" => 4,
        "citations" | "judge" | "metrics" | "rag" | "scoring" | "semantic" => 5,
        "corpus" | "lexicon" | "report" => 6,
        "http" | "pool" | "progress" | "secrets" | "shard" | "signature" | "stats" | "sys"
        | "test_rng" | "text" => 7,
        _ => return None,
    })
}

/// Every import of every module names its own layer or one below it:
/// the views (terminal tables, report.html, charts) import no job, the
/// writers (report) no view, computation or stage, the inputs (corpus) no
/// stage. A module this test does not know is an error, so that a new one
/// is placed in a layer.
#[test]
fn issue_42_every_import_points_down_the_layers() {
    let src = repo().join("src");
    let mut up = Vec::new();
    for f in rust_files(&src) {
        let rel = relative(&src, &f);
        if rel == "lib.rs" || rel == "main.rs" {
            continue;
        }
        let own = rel.split(['/', '.']).next().unwrap_or("");
        let Some(mine) = layer(own) else {
            up.push(format!("src/{rel}: module `{own}` is in no layer"));
            continue;
        };
        for (line, module) in imports(&f) {
            match layer(&module) {
                Some(theirs) if theirs < mine => up.push(format!(
                    "src/{rel}:{line}: crate::{module} (layer {theirs} from {mine})"
                )),
                None if !module.is_empty() => {
                    up.push(format!("src/{rel}:{line}: crate::{module} is in no layer"))
                }
                _ => {}
            }
        }
    }
    assert!(up.is_empty(), "imports pointing up:\n{}", up.join("\n"));
}

/// No two top-level modules import each other, directly or through
/// others: the module graph has no cycle.
#[test]
fn issue_42_no_module_cycle() {
    use std::collections::{BTreeMap, BTreeSet};
    let src = repo().join("src");
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in rust_files(&src) {
        let rel = relative(&src, &f);
        if rel == "lib.rs" || rel == "main.rs" {
            continue;
        }
        let own = rel.split(['/', '.']).next().unwrap_or("").to_string();
        let edges = graph.entry(own.clone()).or_default();
        for (_, module) in imports(&f) {
            if module != own && layer(&module).is_some() {
                edges.insert(module);
            }
        }
    }
    let mut done = BTreeSet::new();
    for m in graph.keys() {
        let cycle = visit(m, &graph, &mut Vec::new(), &mut done);
        assert!(
            cycle.is_none(),
            "module cycle: {}",
            cycle.unwrap().join(" -> ")
        );
    }
}

/// Depth-first search from `m`; a module met again on the current path
/// closes a cycle, returned with `m` at both ends.
fn visit(
    m: &str,
    graph: &std::collections::BTreeMap<String, std::collections::BTreeSet<String>>,
    path: &mut Vec<String>,
    done: &mut std::collections::BTreeSet<String>,
) -> Option<Vec<String>> {
    if let Some(at) = path.iter().position(|p| p == m) {
        let mut cycle = path[at..].to_vec();
        cycle.push(m.to_string());
        return Some(cycle);
    }
    if !done.insert(m.to_string()) {
        return None;
    }
    path.push(m.to_string());
    for next in graph.get(m).into_iter().flatten() {
        if let Some(c) = visit(next, graph, path, done) {
            return Some(c);
        }
    }
    path.pop();
    None
}

/// The module path of a file under `src` (`jobs/merge.rs` and
/// `jobs/merge/mod.rs` are `["jobs", "merge"]`; `lib.rs` is the root).
fn module_of(rel: &str) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .trim_end_matches(".rs")
        .split('/')
        .map(str::to_string)
        .collect();
    if parts
        .last()
        .is_some_and(|l| l == "mod" || l == "lib" || l == "main")
    {
        parts.pop();
    }
    parts
}

/// The module paths a file names (`crate::`, `super::`, `self::` paths,
/// and each item of a `{...}` group after one), resolved from `module`;
/// below a top-level `mod NAME {` line (a file's inline tests), paths
/// resolve from `module::NAME`. Outside comments.
fn paths_named(path: &Path, module: &[String]) -> Vec<(usize, Vec<String>)> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut out = Vec::new();
    let mut here: Vec<String> = module.to_vec();
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    for (n, line) in text.lines().enumerate() {
        if let Some(name) = line
            .strip_prefix("mod ")
            .and_then(|r| r.strip_suffix(" {"))
            .filter(|r| r.chars().all(is_word))
        {
            here = module.to_vec();
            here.push(name.to_string());
            continue;
        }
        let code = line.split("//").next().unwrap_or("");
        let bytes = code.as_bytes();
        for head in ["crate::", "super::", "self::"] {
            let mut from = 0;
            while let Some(i) = code[from..].find(head).map(|i| i + from) {
                from = i + head.len();
                // A whole word: not `mycrate::`.
                if i > 0 && is_word(char::from(bytes[i - 1])) {
                    continue;
                }
                let mut base: Vec<String> = match head {
                    "crate::" => Vec::new(),
                    "super::" => here[..here.len().saturating_sub(1)].to_vec(),
                    _ => here.clone(),
                };
                let mut rest = &code[from..];
                let mut segs: Vec<String> = Vec::new();
                loop {
                    let word: String = rest.chars().take_while(|&c| is_word(c)).collect();
                    if word.is_empty() {
                        break;
                    }
                    rest = &rest[word.len()..];
                    if word == "super" && segs.is_empty() {
                        base.pop();
                    } else {
                        segs.push(word);
                    }
                    match rest.strip_prefix("::") {
                        Some(r) => rest = r,
                        None => break,
                    }
                }
                base.extend(segs);
                if let Some(group) = rest.strip_prefix('{') {
                    let group = group.split('}').next().unwrap_or("");
                    for item in group.split(',') {
                        let first: String =
                            item.trim().chars().take_while(|&c| is_word(c)).collect();
                        if !first.is_empty() && first != "self" {
                            let mut p = base.clone();
                            p.push(first);
                            out.push((n + 1, p));
                        }
                    }
                }
                out.push((n + 1, base));
            }
        }
    }
    out
}

/// No module cycle inside a folder either: of the modules of one parent
/// (the files of `src/jobs/`, of `src/corpus/`, ...), none imports another
/// that imports it back, directly or through siblings. An import is
/// counted for the two siblings that hold its two ends.
#[test]
fn issue_56_no_module_cycle_among_siblings() {
    use std::collections::{BTreeMap, BTreeSet};
    let src = repo().join("src");
    let files: Vec<(Vec<String>, PathBuf)> = rust_files(&src)
        .into_iter()
        .map(|f| (module_of(&relative(&src, &f)), f))
        .collect();
    let modules: BTreeSet<Vec<String>> = files.iter().map(|(m, _)| m.clone()).collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut why: BTreeMap<(String, String), String> = BTreeMap::new();
    for (me, f) in &files {
        for (line, named) in paths_named(f, me) {
            // The longest prefix that is a module of the crate.
            let Some(target) = (1..=named.len())
                .rev()
                .map(|n| named[..n].to_vec())
                .find(|p| modules.contains(p))
            else {
                continue;
            };
            let common = me.iter().zip(&target).take_while(|(a, b)| a == b).count();
            if common >= me.len() || common >= target.len() {
                // A module and its own ancestor or descendant.
                continue;
            }
            let (a, b) = (me[..=common].join("::"), target[..=common].join("::"));
            graph.entry(a.clone()).or_default().insert(b.clone());
            why.entry((a, b))
                .or_insert_with(|| format!("{}:{line}", relative(&src, f)));
        }
    }
    let mut done = BTreeSet::new();
    for m in graph.keys() {
        if let Some(cycle) = visit(m, &graph, &mut Vec::new(), &mut done) {
            let steps: Vec<String> = cycle
                .windows(2)
                .map(|w| {
                    format!(
                        "{} -> {} (src/{})",
                        w[0],
                        w[1],
                        why[&(w[0].clone(), w[1].clone())]
                    )
                })
                .collect();
            panic!("module cycle:\n{}", steps.join("\n"));
        }
    }
    // The test sees the imports it checks (a resolver that found none
    // would pass anything).
    assert!(graph
        .get("jobs::merge")
        .is_some_and(|e| e.contains("jobs::shards")));
}

/// The stages (citations, scoring, judge, rag, semantic, metrics) name
/// neither the inputs (`corpus`) nor the writers (`report`): the helpers
/// they borrowed (`Preview`, the hashes, the clock, a text's turn labels
/// and time anchors) are the base layer's. Three files still read their
/// stage's own input files and are named here until they move to corpus.
#[test]
fn issue_56_the_stages_name_neither_corpus_nor_report() {
    const READERS: [&str; 3] = ["rag/questions.rs", "semantic/texts.rs", "metrics/hotpot.rs"];
    let src = repo().join("src");
    let mut found = Vec::new();
    let mut seen = 0;
    for stage in [
        "citations",
        "scoring",
        "judge",
        "rag",
        "semantic",
        "metrics",
    ] {
        for f in rust_files(&src.join(stage)) {
            seen += 1;
            let rel = relative(&src, &f);
            if READERS.contains(&rel.as_str()) {
                continue;
            }
            for (line, module) in imports(&f) {
                if module == "corpus" || module == "report" {
                    found.push(format!("src/{rel}:{line}: crate::{module}"));
                }
            }
        }
    }
    assert!(seen > 20, "the stages' files were not found");
    assert!(
        found.is_empty(),
        "stages naming corpus or report:\n{}",
        found.join("\n")
    );
}
