//! Reading the coders' files into one [`Ratings`] table.
//!
//! Each file is CSV, TSV, a JSON array of objects or JSON Lines (by its
//! extension), or a run folder, which stands for its per-item table
//! (`evaluate`: `quotes.csv`; `judge-answers`: `items.csv`). One column is
//! the item id; every other column is a rater unless `raters` picks and
//! orders them. Files are joined on the id (an outer join: a rater who did
//! not rate an item leaves a missing value). Empty cells (after trimming
//! spaces) and JSON `null` are missing; above the nominal level every
//! present value must be a number.

use super::{Level, Ratings, RatingsError};
use crate::corpus::{CorpusError, Preview};
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Errors of reading the coders' files: a file's own error, or files that
/// do not fit together (named in the message).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TableError {
    /// A file could not be read or parsed.
    #[error(transparent)]
    Corpus(#[from] CorpusError),
    /// The files or settings do not fit together.
    #[error("{0}")]
    Input(String),
}

/// What to read.
#[derive(Debug, Clone)]
pub(crate) struct Spec<'a> {
    /// The files (or run folders), joined on the id.
    pub files: &'a [PathBuf],
    /// The id column.
    pub id: &'a str,
    /// The rater columns, in order (`None`: every column but the id, in
    /// order of first appearance).
    pub raters: Option<&'a [String]>,
    /// The level of measurement.
    pub level: Level,
}

/// One file's rows: where each came from and its cells by column.
struct FileTable {
    path: PathBuf,
    columns: Vec<String>,
    rows: Vec<FileRow>,
}

struct FileRow {
    /// 0-based row index; 1-based line where known.
    index: usize,
    line: Option<u64>,
    /// Cells as indices into the load's [`Texts`].
    cells: Vec<Option<u32>>,
}

/// Every distinct cell text of a load, once (a million rows of a few
/// categories hold a few strings, not millions).
#[derive(Default)]
struct Texts {
    list: Vec<String>,
    index: HashMap<String, u32>,
}

impl Texts {
    /// The index of a cell's text: trimmed; empty is missing.
    fn cell(&mut self, s: &str) -> Option<u32> {
        let t = s.trim();
        if t.is_empty() {
            return None;
        }
        if let Some(&i) = self.index.get(t) {
            return Some(i);
        }
        let i = self.list.len() as u32;
        self.list.push(t.to_string());
        self.index.insert(t.to_string(), i);
        Some(i)
    }

    fn text(&self, i: u32) -> &str {
        self.list.get(i as usize).map_or("", String::as_str)
    }
}

impl FileRow {
    fn label(&self) -> String {
        match self.line {
            Some(line) => format!("row {} at line {line}", self.index),
            None => format!("row {}", self.index),
        }
    }
}

/// The per-item table a run folder stands for.
pub(crate) fn run_folder_table(dir: &Path) -> Result<PathBuf, TableError> {
    let manifest =
        crate::report::manifest::Manifest::read(&dir.join(crate::report::run::MANIFEST))?;
    let command = manifest.command.as_str();
    let name = match command {
        "evaluate" => "quotes.csv",
        "judge-answers" => "items.csv",
        other => {
            return Err(TableError::Input(format!(
                "{}: a {other:?} run folder has no per-item table agreement reads \
                 (evaluate's quotes.csv, judge-answers' items.csv)",
                dir.display()
            )))
        }
    };
    let table = dir.join(name);
    if !table.is_file() {
        return Err(TableError::Input(format!(
            "{}: the {command} run folder has no {name} (written since corpus-eval 0.16; run it again)",
            dir.display()
        )));
    }
    Ok(table)
}

fn read_file(path: &Path, texts: &mut Texts) -> Result<FileTable, TableError> {
    let path = if path.is_dir() {
        run_folder_table(path)?
    } else {
        path.to_path_buf()
    };
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("csv") => read_delimited(&path, b',', texts),
        Some("tsv") | Some("tab") => read_delimited(&path, b'\t', texts),
        Some("json") | Some("jsonl") | Some("ndjson") => read_json(&path, texts),
        _ => Err(TableError::Input(format!(
            "{}: a ratings file ends in .csv, .tsv, .json or .jsonl (or is a run folder)",
            path.display()
        ))),
    }
}

fn read_delimited(path: &Path, delimiter: u8, texts: &mut Texts) -> Result<FileTable, TableError> {
    let text = crate::corpus::read_text(path)?;
    let mut rows = Vec::new();
    let columns = crate::corpus::tabular::each_delimited(
        path,
        &text,
        delimiter,
        |_, index, line, record| {
            rows.push(FileRow {
                index,
                line: Some(line),
                cells: record.iter().map(|c| texts.cell(c)).collect(),
            })
        },
    )?;
    Ok(FileTable {
        path: path.to_path_buf(),
        columns,
        rows,
    })
}

fn read_json(path: &Path, texts: &mut Texts) -> Result<FileTable, TableError> {
    let records = crate::corpus::records::load_records(path)?;
    table_of_records(path, records, texts)
}

fn table_of_records(
    path: &Path,
    records: Vec<crate::corpus::records::Record>,
    texts: &mut Texts,
) -> Result<FileTable, TableError> {
    let mut columns: Vec<String> = Vec::new();
    let mut position: HashMap<String, usize> = HashMap::new();
    let mut rows = Vec::with_capacity(records.len());
    for r in records {
        let label = r.label(None);
        let Value::Object(fields) = r.value else {
            return Err(CorpusError::Record {
                path: path.to_path_buf(),
                record: label,
                field: "(row)".into(),
                message: format!(
                    "expected an object, found {}",
                    crate::corpus::json_kind(&r.value)
                ),
            }
            .into());
        };
        let mut cells: Vec<Option<u32>> = vec![None; columns.len()];
        for (key, value) in fields {
            let text = match &value {
                Value::Null => None,
                Value::String(s) => texts.cell(s),
                Value::Number(n) => texts.cell(&n.to_string()),
                Value::Bool(b) => texts.cell(&b.to_string()),
                other => {
                    return Err(CorpusError::Record {
                        path: path.to_path_buf(),
                        record: label,
                        field: key,
                        message: format!(
                            "expected a string, number, boolean or null, found {}",
                            crate::corpus::json_kind(other)
                        ),
                    }
                    .into())
                }
            };
            let at = *position.entry(key.clone()).or_insert_with(|| {
                columns.push(key);
                columns.len() - 1
            });
            if at >= cells.len() {
                cells.resize(at + 1, None);
            }
            cells[at] = text;
        }
        rows.push(FileRow {
            index: r.index,
            line: r.line.map(|l| l as u64),
            cells,
        });
    }
    Ok(FileTable {
        path: path.to_path_buf(),
        columns,
        rows,
    })
}

/// Reads, checks and joins the files into one table.
pub(crate) fn load(spec: &Spec) -> Result<Ratings, TableError> {
    if spec.files.is_empty() {
        return Err(TableError::Input("agreement needs a ratings file".into()));
    }
    let mut texts = Texts::default();
    let tables = spec
        .files
        .iter()
        .map(|f| read_file(f, &mut texts))
        .collect::<Result<Vec<_>, _>>()?;
    join(tables, texts, spec)
}

/// One table of ratings given as JSON text (an array of row objects or
/// JSON Lines), read as [`load`] reads a JSON file; `label` names it in
/// errors. `spec.files` is not used.
pub(crate) fn load_json_text(label: &Path, text: &str, spec: &Spec) -> Result<Ratings, TableError> {
    let mut texts = Texts::default();
    let records = crate::corpus::records::parse_records(label, text)?;
    let table = table_of_records(label, records, &mut texts)?;
    join(vec![table], texts, spec)
}

/// Checks and joins the tables read into one.
fn join(tables: Vec<FileTable>, texts: Texts, spec: &Spec) -> Result<Ratings, TableError> {
    for t in &tables {
        if !t.columns.iter().any(|c| c == spec.id) {
            return Err(TableError::Input(format!(
                "{}: no id column {:?} (columns: {})",
                t.path.display(),
                Preview(spec.id),
                Preview(&t.columns.join(", "))
            )));
        }
    }
    let raters: Vec<String> = match spec.raters {
        Some(list) => {
            for (i, r) in list.iter().enumerate() {
                if list[..i].contains(r) {
                    return Err(TableError::Input(format!("--raters names {r:?} twice")));
                }
                if r == spec.id {
                    return Err(TableError::Input(format!(
                        "--raters names the id column {r:?}"
                    )));
                }
                if !tables.iter().any(|t| t.columns.contains(r)) {
                    let all: Vec<String> = tables
                        .iter()
                        .map(|t| format!("{}: {}", t.path.display(), t.columns.join(", ")))
                        .collect();
                    return Err(TableError::Input(format!(
                        "--raters: no file has a column {:?} ({})",
                        Preview(r.as_str()),
                        Preview(&all.join("; "))
                    )));
                }
            }
            list.to_vec()
        }
        None => {
            let mut all: Vec<String> = Vec::new();
            for c in tables.iter().flat_map(|t| &t.columns) {
                if c != spec.id && !all.contains(c) {
                    all.push(c.clone());
                }
            }
            all
        }
    };
    if raters.len() < 2 {
        let files: Vec<String> = tables
            .iter()
            .map(|t| t.path.display().to_string())
            .collect();
        return Err(TableError::Input(format!(
            "{}: agreement needs two rater columns at least, found {} ({})",
            files.join(", "),
            raters.len(),
            crate::corpus::Preview(&raters.join(", "))
        )));
    }
    if tables.iter().all(|t| t.rows.is_empty()) {
        let files: Vec<String> = tables
            .iter()
            .map(|t| t.path.display().to_string())
            .collect();
        return Err(TableError::Input(format!(
            "{}: no rows to compare (a header line alone)",
            files.join(", ")
        )));
    }
    let r = raters.len();
    let mut ids: Vec<String> = Vec::new();
    let mut item_of: HashMap<String, usize> = HashMap::new();
    let mut cells: Vec<Option<u32>> = Vec::new();
    // Which file set each cell, to name both when two files disagree.
    let mut origin: Vec<u16> = Vec::new();
    for (f, t) in tables.iter().enumerate() {
        let id_col = t.columns.iter().position(|c| c == spec.id).unwrap_or(0);
        let map: Vec<(usize, usize)> = raters
            .iter()
            .enumerate()
            .filter_map(|(ri, name)| t.columns.iter().position(|c| c == name).map(|ci| (ri, ci)))
            .collect();
        let mut seen: HashMap<&str, usize> = HashMap::with_capacity(t.rows.len());
        for row in &t.rows {
            let fail = |field: &str, message: String| -> TableError {
                CorpusError::Record {
                    path: t.path.clone(),
                    record: row.label(),
                    field: field.to_string(),
                    message,
                }
                .into()
            };
            let Some(id) = row
                .cells
                .get(id_col)
                .copied()
                .flatten()
                .map(|i| texts.text(i))
            else {
                return Err(fail(spec.id, "the id is empty".into()));
            };
            if let Some(&first) = seen.get(id) {
                return Err(fail(
                    spec.id,
                    format!(
                        "id {:?} repeats {} of this file",
                        Preview(id),
                        t.rows[first].label()
                    ),
                ));
            }
            seen.insert(id, row.index);
            let item = match item_of.get(id) {
                Some(&i) => i,
                None => {
                    let i = ids.len();
                    ids.push(id.to_string());
                    item_of.insert(id.to_string(), i);
                    cells.resize(cells.len() + r, None);
                    origin.resize(origin.len() + r, 0);
                    i
                }
            };
            for &(ri, ci) in &map {
                let Some(value) = row.cells.get(ci).copied().flatten() else {
                    continue;
                };
                let at = item * r + ri;
                if let Some(old) = cells[at] {
                    if old != value {
                        return Err(fail(
                            &raters[ri],
                            format!(
                                "item {:?} is rated {:?} here and {:?} in {}",
                                Preview(id),
                                Preview(texts.text(value)),
                                Preview(texts.text(old)),
                                tables[origin[at] as usize].path.display()
                            ),
                        ));
                    }
                }
                cells[at] = Some(value);
                origin[at] = f as u16;
            }
        }
    }
    let ratings = if spec.level.is_numeric() {
        // Each distinct text is parsed once, when a cell first uses it.
        let mut parsed: Vec<Option<Result<f64, String>>> = vec![None; texts.list.len()];
        let mut numbers = Vec::with_capacity(cells.len());
        for (at, c) in cells.iter().enumerate() {
            numbers.push(match c {
                None => None,
                Some(i) => Some(
                    parsed[*i as usize]
                        .get_or_insert_with(|| parse_number(texts.text(*i), spec.level))
                        .clone()
                        .map_err(|message| {
                            locate(
                                &tables,
                                &texts,
                                origin[at],
                                &ids[at / r],
                                &raters[at % r],
                                spec.id,
                                message,
                            )
                        })?,
                ),
            });
        }
        Ratings::numeric(ids, raters, spec.level, numbers)
    } else {
        Ratings::nominal_indexed(ids, raters, &texts.list, cells)
    };
    ratings.map_err(|e| match e {
        RatingsError::TooManyValues(_) => TableError::Input(format!(
            "{}: {e}",
            spec.files
                .iter()
                .map(|f| f.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )),
        other => TableError::Input(other.to_string()),
    })
}

/// A number at a numeric level: finite, and non-negative at the ratio level.
fn parse_number(text: &str, level: Level) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() && (level != Level::Ratio || v >= 0.0) => Ok(v + 0.0),
        Ok(v) if v.is_finite() => Err(format!(
            "{v} is negative: the ratio level takes numbers >= 0"
        )),
        _ => Err(format!(
            "{:?} is not a finite number (--level {} needs numbers; use --level nominal for categories)",
            Preview(text),
            level.name()
        )),
    }
}

/// The error of a bad cell, naming its file, row and column.
fn locate(
    tables: &[FileTable],
    texts: &Texts,
    file: u16,
    id: &str,
    rater: &str,
    id_column: &str,
    message: String,
) -> TableError {
    let t = &tables[file as usize];
    let id_col = t.columns.iter().position(|c| c == id_column);
    let record = t
        .rows
        .iter()
        .find(|row| {
            id_col
                .and_then(|c| row.cells.get(c).copied().flatten())
                .map(|i| texts.text(i))
                == Some(id)
        })
        .map_or_else(|| format!("id {:?}", Preview(id)), FileRow::label);
    CorpusError::Record {
        path: t.path.clone(),
        record,
        field: rater.to_string(),
        message,
    }
    .into()
}
