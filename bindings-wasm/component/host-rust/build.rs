//! `bindgen!` reads `../wit` at compile time but does not tell cargo: rebuild
//! the host when the world changes, so that it never runs stale bindings.

fn main() {
    println!("cargo:rerun-if-changed=../wit");
}
