//! Decompresses the shipped WordNet lexicon into OUT_DIR so the binary
//! embeds its text and loading it needs no decompression; and, for the
//! command line, reads the number of mimalloc's purge-delay option from
//! the very header the allocator is compiled from (libmimalloc-sys names
//! no constant for it), so that an allocator upgrade that renumbers its
//! options fails the build instead of setting another option.

use std::io::Read;

fn main() {
    let src = "datasets/wordnet-lexicon.txt.gz";
    println!("cargo:rerun-if-changed={src}");
    let out =
        std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR is set by cargo"));
    let gz = std::fs::read(src).unwrap_or_else(|e| panic!("cannot read {src}: {e}"));
    let mut text = String::new();
    flate2::read::GzDecoder::new(&gz[..])
        .read_to_string(&mut text)
        .unwrap_or_else(|e| panic!("{src} is not a gzipped UTF-8 lexicon: {e}"));
    std::fs::write(out.join("wordnet-lexicon.txt"), text)
        .expect("write OUT_DIR/wordnet-lexicon.txt");
    mimalloc_options(&out);
}

/// Writes OUT_DIR/mimalloc_options.rs: `MI_OPTION_PURGE_DELAY`, the
/// position of `mi_option_purge_delay` in the `mi_option_e` enum of the
/// `mimalloc.h` libmimalloc-sys builds with (its `DEP_MIMALLOC_INCLUDE_DIR`;
/// only set when the `cli` feature brings the crate in).
fn mimalloc_options(out: &std::path::Path) {
    let Some(dir) = std::env::var_os("DEP_MIMALLOC_INCLUDE_DIR") else {
        return;
    };
    let header = std::path::Path::new(&dir).join("mimalloc.h");
    println!("cargo:rerun-if-changed={}", header.display());
    let text = std::fs::read_to_string(&header)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", header.display()));
    let body = text
        .split_once("typedef enum mi_option_e {")
        .and_then(|(_, rest)| rest.split_once("} mi_option_t;"))
        .map(|(body, _)| body)
        .unwrap_or_else(|| panic!("{}: no mi_option_e enum", header.display()));
    // Entries without comments; numbered from 0, none given a value before
    // the one looked for (checked).
    let names: Vec<&str> = body
        .lines()
        .map(|l| l.split("//").next().unwrap_or("").trim())
        .flat_map(|l| l.split(','))
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .collect();
    let at = names
        .iter()
        .position(|e| *e == "mi_option_purge_delay")
        .unwrap_or_else(|| panic!("{}: no mi_option_purge_delay", header.display()));
    if let Some(e) = names[..at].iter().find(|e| e.contains('=')) {
        panic!(
            "{}: an option before the purge delay has a value: {e}",
            header.display()
        );
    }
    std::fs::write(
        out.join("mimalloc_options.rs"),
        format!(
            "/// `mi_option_purge_delay`, read from {} by build.rs.\nconst MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = {at};\n",
            header.display()
        ),
    )
    .expect("write OUT_DIR/mimalloc_options.rs");
}
