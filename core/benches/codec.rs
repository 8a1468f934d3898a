//! Base64 engines side by side: the SIMD engine the format uses vs the scalar one.

use std::hint::black_box;

use agent_checkpoint::codec;
use base64::Engine as _;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

fn engines(c: &mut Criterion) {
    let data: Vec<u8> = (0..(16u32 << 20))
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let text = codec::SCALAR.encode(&data);
    let mut group = c.benchmark_group("base64-16MiB");
    group.throughput(Throughput::Bytes(data.len() as u64));
    group.sample_size(10);
    group.bench_function("encode/simd", |b| {
        b.iter(|| {
            let mut out = String::with_capacity(text.len());
            codec::encode_into(black_box(&data), &mut out);
            out
        })
    });
    group.bench_function("encode/scalar", |b| {
        b.iter(|| codec::SCALAR.encode(black_box(&data)))
    });
    group.bench_function("decode/simd", |b| {
        b.iter(|| codec::decode(black_box(&text)))
    });
    group.bench_function("decode/scalar", |b| {
        b.iter(|| codec::SCALAR.decode(black_box(&text)))
    });
    group.bench_function("sha256", |b| {
        b.iter(|| agent_checkpoint::internals::sha256(black_box(&data)))
    });
    group.finish();
}

criterion_group!(benches, engines);
criterion_main!(benches);
