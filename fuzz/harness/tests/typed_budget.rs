//! Typed decoding under a budget, measured by the counting allocator: hostile payloads into
//! types whose elements are large stay within twice `max_alloc_bytes` plus serde's reservation
//! cap (the documented slack), and are refused by the budget, not by the allocator.

use std::collections::HashMap;

use hardpack::{Decoder, Limit, Limits};
use hardpack_harness::alloc_meter::{self, CountingAlloc};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

const BUDGET: usize = 1 << 20;
/// serde reserves at most 1 MiB from a size hint, per open collection.
const SERDE_CAP: usize = 1 << 20;

fn decoder() -> Decoder {
    Decoder::new(Limits::default().with(Limit::AllocBytes, BUDGET))
}

/// An array32 header claiming `n` elements, then `n` copies of `item`.
fn array_of(n: u32, item: &[u8]) -> Vec<u8> {
    let mut bytes = vec![0xdd];
    bytes.extend(n.to_be_bytes());
    for _ in 0..n {
        bytes.extend(item);
    }
    bytes
}

fn check<T: for<'de> serde::Deserialize<'de>>(what: &str, input: &[u8]) {
    assert!(alloc_meter::is_installed());
    let (result, cost) = alloc_meter::measure(|| decoder().from_slice::<T>(input).map(drop));
    let err = result.expect_err(what);
    assert_eq!(err.limit(), Some(Limit::AllocBytes), "{what}: {err}");
    assert!(
        cost.peak_bytes <= 2 * BUDGET + SERDE_CAP,
        "{what}: {} bytes at peak for a budget of {BUDGET}",
        cost.peak_bytes
    );
    println!(
        "{what}: refused at byte {}, peak {} bytes for {} input bytes ({:.1} per input byte)",
        err.offset(),
        cost.peak_bytes,
        input.len(),
        cost.peak_bytes as f64 / input.len() as f64
    );
}

#[test]
fn a_million_elements_into_big_types_stay_within_the_budget() {
    // A million empty arrays, each read as [u64; 32] would be refused by its length; a million
    // nils read as Option<[u64; 32]> (264 bytes each) are not.
    check::<Vec<Option<[u64; 32]>>>("Vec<Option<[u64; 32]>>", &array_of(1_000_000, &[0xc0]));
    // 32 zeros each: 33 input bytes an element, 256 bytes of element.
    let mut item = vec![0xdc, 0x00, 0x20];
    item.extend([0u8; 32]);
    check::<Vec<[u64; 32]>>("Vec<[u64; 32]>", &array_of(100_000, &item));
    // A map of 100,000 distinct short keys to empty arrays (a `Vec<u8>` reads a sequence).
    let mut map = vec![0xdf];
    map.extend(100_000u32.to_be_bytes());
    for i in 0..100_000u32 {
        let key = format!("{i:06}");
        map.push(0xa6);
        map.extend(key.as_bytes());
        map.push(0x90);
    }
    check::<HashMap<String, Vec<u8>>>("HashMap<String, Vec<u8>>", &map);
}

/// Decodes `input` as `T` under a budget of exactly what the decode charges: accepted, and
/// the heap held at peak is within the documented bound for that budget (twice it, plus
/// serde's reservation cap for each of the `open` collections open at once).
fn within_twice_its_own_charge<T: for<'de> serde::Deserialize<'de>>(
    what: &str,
    input: &[u8],
    open: usize,
) {
    let unbudgeted = Decoder::new(Limits::default().with(Limit::AllocBytes, usize::MAX));
    let charged = unbudgeted
        .from_slice_with_stats::<T>(input)
        .map(|(_, stats)| stats.charged_bytes)
        .expect(what);
    let exact = Decoder::new(Limits::default().with(Limit::AllocBytes, charged));
    let (result, cost) = alloc_meter::measure(|| exact.from_slice::<T>(input).map(drop));
    result.expect(what);
    let bound = 2 * charged + open * SERDE_CAP;
    println!(
        "{what}: charged {charged}, peak {} ({:.2} per byte charged), bound {bound}",
        cost.peak_bytes,
        cost.peak_bytes as f64 / charged as f64
    );
    assert!(
        cost.peak_bytes <= bound,
        "{what}: {} bytes at peak under a budget of its own charge {charged}",
        cost.peak_bytes
    );
}

/// `n` entries `key(i) => value(i)`, in a map32.
fn map_of(n: u32, entry: impl Fn(u32) -> Vec<u8>) -> Vec<u8> {
    let mut bytes = vec![0xdf];
    bytes.extend(n.to_be_bytes());
    for i in 0..n {
        bytes.extend(entry(i));
    }
    bytes
}

fn uint32(n: u32) -> Vec<u8> {
    [&[0xce][..], &n.to_be_bytes()].concat()
}

#[derive(serde::Deserialize)]
#[allow(dead_code)]
struct Point {
    x: f64,
    y: f64,
}

/// A `Point` written as a map of its two fields.
fn point_as_map() -> Vec<u8> {
    [
        &[0x82, 0xa1, b'x', 0xcb][..],
        &1.5f64.to_be_bytes(),
        &[0xa1, b'y', 0xcb],
        &2.5f64.to_be_bytes(),
    ]
    .concat()
}

#[test]
fn what_a_typed_decode_holds_stays_within_twice_its_charge() {
    // A hash table keeps its buckets at most 7/8 full, in a power-of-two array, and grows by
    // copying into one twice as large: 262,144 entries of 16 bytes take 8.9 MB, and 13.4 MB
    // while the last growth copies.
    let ints = map_of(1 << 18, |i| [uint32(i), uint32(i)].concat());
    within_twice_its_own_charge::<HashMap<u64, u64>>("HashMap<u64, u64>", &ints, 1);
    within_twice_its_own_charge::<std::collections::BTreeMap<u64, u64>>(
        "BTreeMap<u64, u64>",
        &ints,
        1,
    );
    let strings = map_of(100_000, |i| {
        let key = format!("k{i:07}");
        [&[0xa8][..], key.as_bytes(), &[0x93, 0x01, 0x02, 0x03]].concat()
    });
    within_twice_its_own_charge::<HashMap<String, Vec<u8>>>(
        "HashMap<String, Vec<u8>>",
        &strings,
        2,
    );
    let texts = array_of(
        100_000,
        &[0xa8, b's', b't', b'r', b'i', b'n', b'g', b'!', b'?'],
    );
    within_twice_its_own_charge::<Vec<String>>("Vec<String>", &texts, 1);
    let mut boxed = vec![0xdc, 0x00, 0x10];
    boxed.extend([7u8; 16]);
    within_twice_its_own_charge::<Vec<Box<[u64; 16]>>>(
        "Vec<Box<[u64; 16]>>",
        &array_of(100_000, &boxed),
        2,
    );
    // Structs read from maps: their fields are inline, charged once.
    let point = point_as_map();
    let points = array_of(100_000, &point);
    within_twice_its_own_charge::<Vec<Point>>("Vec<Point>", &points, 1);
}

/// What a decode into `T` charges.
fn charge_of<'de, T: serde::Deserialize<'de>>(input: &'de [u8]) -> usize {
    Decoder::new(Limits::default())
        .from_slice_with_stats::<T>(input)
        .map(|(_, stats)| stats.charged_bytes)
        .expect("accepted")
}

#[test]
fn each_shape_is_charged_what_the_model_says() {
    use std::collections::BTreeMap;
    use std::mem::size_of;
    let n = 1_000;
    // A sequence: its element type's size, for each element.
    let ints = array_of(n, &[0x07]);
    assert_eq!(charge_of::<Vec<u64>>(&ints), 1_000 * 8);
    assert_eq!(charge_of::<Vec<u8>>(&ints), 1_000);
    // A bin read as a sequence: each byte an element.
    let mut bin = vec![0xc5];
    bin.extend(1_000u16.to_be_bytes());
    bin.extend([7u8; 1_000]);
    assert_eq!(charge_of::<Vec<u16>>(&bin), 1_000 * 2);
    // Strs copied: the slot and the bytes.
    let texts = array_of(n, &[0xa3, b'a', b'b', b'c']);
    assert_eq!(
        charge_of::<Vec<String>>(&texts),
        1_000 * (size_of::<String>() + 3)
    );
    // Borrowed: the slot only.
    assert_eq!(charge_of::<Vec<&str>>(&texts), 1_000 * size_of::<&str>());
    // A map collection: twice each key's and each value's size (a table's slots).
    let entries = map_of(n, |i| [uint32(i), uint32(i)].concat());
    assert_eq!(
        charge_of::<HashMap<u64, u32>>(&entries),
        1_000 * 2 * (8 + 4)
    );
    assert_eq!(
        charge_of::<BTreeMap<u64, u64>>(&entries),
        1_000 * 2 * (8 + 8)
    );
    // A boxed fixed-size array: the box's pointer as an element, its array as a tuple.
    let mut boxed = vec![0xdc, 0x00, 0x10];
    boxed.extend([7u8; 16]);
    assert_eq!(
        charge_of::<Vec<Box<[u64; 16]>>>(&array_of(n, &boxed)),
        1_000 * (8 + 128)
    );
    // A struct: its size once, for all its fields, whether read from an array or a map
    // (whose keys name fields and are not charged); in a sequence, once more as the element.
    let point_map = point_as_map();
    let point_array = [
        &[0x92, 0xcb][..],
        &1.5f64.to_be_bytes(),
        &[0xcb],
        &2.5f64.to_be_bytes(),
    ]
    .concat();
    for point in [&point_map, &point_array] {
        assert_eq!(charge_of::<Point>(point), size_of::<Point>());
        assert_eq!(
            charge_of::<Vec<Point>>(&array_of(n, point)),
            1_000 * 2 * size_of::<Point>()
        );
    }
    // A tuple of mixed types: its size once.
    assert_eq!(
        charge_of::<(u8, String)>(&[0x92, 0x01, 0xa3, b'a', b'b', b'c']),
        size_of::<(u8, String)>() + 3
    );
    // A tuple variant's fields are a sequence: each larger type pays the difference for the
    // elements left (a byte for both, then the String's size less that byte for the one
    // left), and the copied str its byte.
    #[derive(serde::Deserialize)]
    #[allow(dead_code)]
    enum Shape {
        Pair(u8, String),
    }
    assert_eq!(
        charge_of::<Shape>(&[0x81, 0xa4, b'P', b'a', b'i', b'r', 0x92, 0x01, 0xa1, b'a']),
        2 + (size_of::<String>() - 1) + 1
    );
}

/// A struct whose visitor keeps what it is handed in a collection: past the struct's own size
/// (charged once), each element is charged as it comes, so the collection is never free.
#[test]
fn a_visitor_that_builds_a_collection_from_a_struct_still_pays_for_it() {
    struct Collected(Vec<u64>);
    impl<'de> serde::Deserialize<'de> for Collected {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct Visit;
            impl<'de> serde::de::Visitor<'de> for Visit {
                type Value = Collected;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("integers")
                }
                fn visit_seq<A: serde::de::SeqAccess<'de>>(
                    self,
                    mut seq: A,
                ) -> Result<Collected, A::Error> {
                    let mut all = Vec::new();
                    while let Some(n) = seq.next_element::<u64>()? {
                        all.push(n);
                    }
                    Ok(Collected(all))
                }
            }
            d.deserialize_struct("Collected", &["n"], Visit)
        }
    }
    let ints = array_of(1_000, &[0x07]);
    // Its own 24 bytes pay for three elements; the other 997 are charged.
    assert_eq!(charge_of::<Collected>(&ints), 24 + 997 * 8);
    let collected = Decoder::new(Limits::default())
        .from_slice::<Collected>(&ints)
        .unwrap();
    assert_eq!(collected.0.len(), 1_000);
    let tight = Decoder::new(Limits::default().with(Limit::AllocBytes, 4_000));
    let err = tight.from_slice::<Collected>(&ints).map(drop).unwrap_err();
    assert_eq!(err.limit(), Some(Limit::AllocBytes), "{err}");
}

#[test]
fn boxed_elements_whose_heap_passes_the_budget_are_refused() {
    // 100,000 boxes of 128 bytes: 12.8 MB of boxes and 0.8 MB of pointers, under 8 MB.
    let mut boxed = vec![0xdc, 0x00, 0x10];
    boxed.extend([7u8; 16]);
    let input = array_of(100_000, &boxed);
    let budget = 8_000_000;
    let decoder = Decoder::new(Limits::default().with(Limit::AllocBytes, budget));
    let (result, cost) =
        alloc_meter::measure(|| decoder.from_slice::<Vec<Box<[u64; 16]>>>(&input).map(drop));
    let err = result.expect_err("13.6 MB of boxes under an 8 MB budget");
    assert_eq!(err.limit(), Some(Limit::AllocBytes), "{err}");
    assert!(cost.peak_bytes <= 2 * budget + 2 * SERDE_CAP);
}
