//! The tests' RAG API server (`tests/util/rag_server.rs`) as a program, to
//! try `corpus-eval rag` locally and to benchmark it:
//!
//!     cargo run --release --example rag_test_server -- [--auth SECRET] [--delay-ms MS]
//!
//! It prints its URL and serves until killed.

#[path = "../tests/util/rag_server.rs"]
mod rag_server;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let server = rag_server::RagServer::start(value("--auth").as_deref(), 16);
    if let Some(ms) = value("--delay-ms").and_then(|v| v.parse().ok()) {
        server.set_delay_ms(ms);
    }
    println!("{}", server.url);
    loop {
        std::thread::sleep(std::time::Duration::from_secs(3600));
    }
}
