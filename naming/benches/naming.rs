//! Benchmarks of the naming layer: minting, validating and parsing IDs and refs.

use std::hint::black_box;

use agent_checkpoint_naming::{id, refs};
use criterion::{criterion_group, criterion_main, Criterion};

const LEGACY: &str = "a1b2c3d4e5f6";
const ULID: &str = "01KVBJCWYA4YW6J5M9GP655HZN";

fn minting(c: &mut Criterion) {
    c.bench_function("new_ulid/now", |b| b.iter(|| id::new_ulid(black_box(None))));
    c.bench_function("new_ulid/at", |b| {
        b.iter(|| id::new_ulid(black_box(Some(1_700_000_000_000))))
    });
    c.bench_function("new_checkpoint_id", |b| b.iter(id::new_checkpoint_id));
}

fn validating(c: &mut Criterion) {
    c.bench_function("validate_checkpoint_id/legacy", |b| {
        b.iter(|| id::validate_checkpoint_id(black_box(LEGACY)))
    });
    c.bench_function("validate_checkpoint_id/ulid", |b| {
        b.iter(|| id::validate_checkpoint_id(black_box(ULID)))
    });
    c.bench_function("validate_checkpoint_id/invalid", |b| {
        b.iter(|| id::validate_checkpoint_id(black_box("8123456789ABCDEFGHJKMNPQRS")))
    });
}

fn refs_round_trip(c: &mut Criterion) {
    c.bench_function("ref_name/legacy", |b| {
        b.iter(|| refs::ref_name(black_box(LEGACY)))
    });
    c.bench_function("ref_name/ulid", |b| {
        b.iter(|| refs::ref_name(black_box(ULID)))
    });
    let legacy_ref = format!("{}f6/{LEGACY}", refs::CHECKPOINT_REF_PREFIX);
    let ulid_ref = format!("{}ZN/{ULID}", refs::CHECKPOINT_REF_PREFIX);
    c.bench_function("parse_ref/legacy", |b| {
        b.iter(|| refs::parse_ref(black_box(&legacy_ref)))
    });
    c.bench_function("parse_ref/ulid", |b| {
        b.iter(|| refs::parse_ref(black_box(&ulid_ref)))
    });
    c.bench_function("parse_ref/rejected", |b| {
        b.iter(|| refs::parse_ref(black_box("refs/entire/checkpoints/a1/a1b2c3d4e5f6")))
    });
}

criterion_group!(benches, minting, validating, refs_round_trip);
criterion_main!(benches);
