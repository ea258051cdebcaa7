//! Issue 41: the docs cannot rot silently. Every relative link and
//! `#anchor` in README.md and docs/ resolves (GitHub's heading anchors),
//! every subcommand `--help` lists has a chapter, the README stays short
//! and shows how to check quotes on its first screen.

use crate::util::repo;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// GitHub's anchor of a heading: lower case, spaces to `-`, every char but
/// letters, digits, `-` and `_` dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .chars()
        .flat_map(char::to_lowercase)
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a Markdown file: each heading's slug (repeats get `-1`,
/// `-2`, ...), outside fenced code blocks.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = BTreeSet::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced || !line.starts_with('#') {
            continue;
        }
        let heading = line.trim_start_matches('#');
        if !heading.starts_with(' ') {
            continue;
        }
        let base = slug(heading);
        let n = seen.entry(base.clone()).or_insert(0);
        out.insert(if *n == 0 {
            base.clone()
        } else {
            format!("{base}-{n}")
        });
        *n += 1;
    }
    out
}

/// The Markdown links `[text](target)` of a file outside code.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // Inline code spans are not links.
        let mut plain = String::new();
        let mut in_code = false;
        for c in line.chars() {
            if c == '`' {
                in_code = !in_code;
            } else if !in_code {
                plain.push(c);
            }
        }
        let mut rest = plain.as_str();
        while let Some(i) = rest.find("](") {
            let after = &rest[i + 2..];
            let Some(end) = after.find(')') else {
                break;
            };
            out.push(after[..end].trim().to_string());
            rest = &after[end..];
        }
    }
    out
}

fn markdown_files() -> Vec<PathBuf> {
    let mut files = vec![repo().join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(repo().join("docs"))
        .expect("docs/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

#[test]
fn issue_41_every_relative_link_and_anchor_resolves() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for file in markdown_files() {
        let text = std::fs::read_to_string(&file).unwrap();
        for target in links(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            checked += 1;
            let (path, anchor) = match target.split_once('#') {
                Some((p, a)) => (p, Some(a)),
                None => (target.as_str(), None),
            };
            let dest: PathBuf = if path.is_empty() {
                file.clone()
            } else {
                file.parent().unwrap_or(Path::new(".")).join(path)
            };
            if !dest.exists() {
                broken.push(format!("{}: {target}: no such file", file.display()));
                continue;
            }
            // Nothing outside the repository.
            let root = repo().canonicalize().unwrap();
            if !dest.canonicalize().unwrap().starts_with(&root) {
                broken.push(format!(
                    "{}: {target}: outside the repository",
                    file.display()
                ));
                continue;
            }
            if let Some(a) = anchor {
                let dest_text = std::fs::read_to_string(&dest).unwrap_or_default();
                if !anchors(&dest_text).contains(a) {
                    broken.push(format!(
                        "{}: {target}: no heading with that anchor",
                        file.display()
                    ));
                }
            }
        }
    }
    assert!(
        broken.is_empty(),
        "{} broken link(s):\n{}",
        broken.len(),
        broken.join("\n")
    );
    assert!(checked > 50, "only {checked} links checked");
}

#[test]
fn issue_41_every_subcommand_has_a_chapter() {
    let help = std::process::Command::new(env!("CARGO_BIN_EXE_corpus-eval"))
        .arg("--help")
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout).into_owned();
    let commands: Vec<String> = help
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .filter(|c| c != "help")
        .collect();
    assert!(commands.len() >= 15, "{commands:?}");
    // A chapter documents it: a heading of a docs/ chapter names it as a
    // command (`corpus-eval NAME` or `NAME` in backticks).
    let headings: Vec<String> = markdown_files()
        .iter()
        .skip(1)
        .flat_map(|f| {
            std::fs::read_to_string(f)
                .unwrap()
                .lines()
                .filter(|l| l.starts_with('#'))
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect();
    for c in &commands {
        let named = headings.iter().any(|h| {
            h.contains(&format!("corpus-eval {c}"))
                || h.contains(&format!("`{c}`"))
                || h.contains(&format!("`{c} "))
        });
        assert!(named, "no chapter heading names the command `{c}`");
    }
}

#[test]
fn issue_41_the_readme_is_short_and_starts_with_checking_quotes() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let lines: Vec<&str> = readme.lines().collect();
    assert!(lines.len() <= 250, "README.md has {} lines", lines.len());
    assert_eq!(
        lines[3],
        "cargo run --release -- evaluate evaluation/data_fixture.json datasets/corpus.json"
    );
    assert_eq!(lines[4], "cargo test");
    let first_screen = lines[..lines.len().min(50)].join("\n");
    assert!(
        first_screen.contains("Check the quotes"),
        "how to check quotes is on the first screen"
    );
    assert!(
        repo().join("docs/images/report.png").is_file(),
        "the report screenshot"
    );
}
