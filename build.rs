//! Decompresses the shipped WordNet lexicon into OUT_DIR so the binary
//! embeds its text and loading it needs no decompression.

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
}
