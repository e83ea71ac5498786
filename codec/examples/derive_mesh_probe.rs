#[path = "../benches/datasets/mod.rs"]
mod datasets;
use std::hint::black_box;
#[inline(never)]
fn decode_serde(bytes: &[u8]) -> datasets::mesh::Mesh {
    hardpack::from_slice::<datasets::mesh::Mesh>(black_box(bytes)).unwrap()
}
#[inline(never)]
fn decode_derive(bytes: &[u8]) -> datasets::mesh::Mesh {
    hardpack::derive::from_slice::<datasets::mesh::Mesh>(black_box(bytes)).unwrap()
}
fn main() {
    let which = std::env::args().nth(1).unwrap_or_default();
    let mut mesh = datasets::mesh::generate();
    mesh.triangles.truncate(10_000);
    let bytes = hardpack::to_vec(&mesh).unwrap();
    let start = std::time::Instant::now();
    for _ in 0..10 {
        if which == "serde" {
            drop(black_box(decode_serde(&bytes)));
        } else {
            drop(black_box(decode_derive(&bytes)));
        }
    }
    println!("{which}: {:?}", start.elapsed() / 10);
}
