//! rmpv 0.4.2 `decode::read_value` on the file: exit 0 decoded, 1 the library returned an error. A
//! panic exits 101, a stack overflow or a failed allocation aborts: both are the runtime
//! failing.
fn main() {
    let path = std::env::args_os().nth(1).expect("usage: decode FILE");
    let data = std::fs::read(&path).unwrap_or_else(|e| {
        eprintln!("{}: {e}", path.to_string_lossy());
        std::process::exit(2)
    });
    if let Err(e) = rmpv::decode::read_value(&mut &data[..]) {
        eprintln!("rmpv::decode::Error: {e}");
        std::process::exit(1);
    }
}
