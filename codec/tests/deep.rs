//! A value nested a million deep survives every operation on a thread with a 64 KiB stack.

use hardpack::{encode, value::ValueBuilder, Decoder, Limit, Limits, Value};

const DEPTH: usize = 1_000_000;
const SMALL_STACK: usize = 64 * 1024;

fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(SMALL_STACK)
        .spawn(f)
        .expect("spawn")
        .join()
        .expect("the small-stack thread panicked or overflowed")
}

fn nested(open: &[u8], depth: usize, leaf: &[u8]) -> Vec<u8> {
    let mut bytes = open.repeat(depth);
    bytes.extend_from_slice(leaf);
    bytes
}

fn unlimited_depth() -> Decoder {
    Decoder::new(
        Limits::default()
            .with(Limit::Depth, usize::MAX)
            .with(Limit::AllocBytes, usize::MAX),
    )
}

#[test]
fn million_deep_array_every_operation_on_small_stack() {
    let bytes = nested(&[0x91], DEPTH, &[0xc0]);
    on_small_stack(move || {
        let value = unlimited_depth().decode(&bytes).expect("decodes");
        assert_eq!(value.shape().max_depth, DEPTH);
        let encoded = encode(&value).expect("encodes");
        assert_eq!(encoded, bytes, "re-encoding is byte-identical");
        let copy = value.clone();
        assert!(copy == value);
        let brackets = |open: &str, close: &str, leaf: &str| {
            format!("{}{leaf}{}", open.repeat(DEPTH), close.repeat(DEPTH))
        };
        assert!(format!("{value:?}") == brackets("[", "]", "nil"));
        assert!(value.to_string() == brackets("[", "]", "null"));
        assert_eq!(hash_of(&value), hash_of(&copy));
        drop(copy);
        drop(value);
    });
}

fn hash_of(value: &Value) -> u64 {
    use std::hash::{BuildHasher, RandomState};
    // One RandomState per process: the same keys for both calls.
    static STATE: std::sync::OnceLock<RandomState> = std::sync::OnceLock::new();
    STATE.get_or_init(RandomState::new).hash_one(value)
}

#[test]
fn million_deep_value_built_item_by_item_on_small_stack() {
    on_small_stack(|| {
        let mut builder = ValueBuilder::new();
        for i in 0..DEPTH {
            // Alternating [x] and {"key": x}: the next level is the element or the value.
            if i % 2 == 0 {
                assert!(builder.start_array(1).is_none());
            } else {
                assert!(builder.start_map(1).is_none());
                assert!(builder.push(Value::from("key")).is_none());
            }
        }
        assert_eq!(builder.depth(), DEPTH);
        let value = builder
            .push(Value::Nil)
            .expect("the leaf completes the value");
        assert!(builder.is_empty());
        assert_eq!(value.shape().max_depth, DEPTH);
        let decoded = unlimited_depth()
            .decode(&encode(&value).expect("encodes"))
            .expect("decodes");
        assert!(decoded == value);
    });
}

#[test]
fn million_deep_maps_in_keys_and_values_on_small_stack() {
    // {k: {k: ... nil}} nesting through values, then through keys: {{...: nil}: nil}
    let through_values = nested(&[0x81, 0xc0], DEPTH, &[0xc0]);
    let mut through_keys = vec![0x81; DEPTH];
    through_keys.push(0xc0);
    through_keys.extend(std::iter::repeat_n(0xc0, DEPTH));
    for bytes in [through_values, through_keys] {
        on_small_stack(move || {
            let value = unlimited_depth().decode(&bytes).expect("decodes");
            assert_eq!(value.shape().max_depth, DEPTH);
            assert_eq!(encode(&value).expect("encodes"), bytes);
            let copy = value.clone();
            assert!(copy == value);
            assert!(format!("{copy:?}") == format!("{value:?}"));
            let shown = value.to_string();
            assert_eq!(shown.matches('{').count(), DEPTH, "one brace per map");
            assert!(shown.starts_with("{null: {") || shown.starts_with("{{{"));
        });
    }
}

#[test]
fn deep_values_that_differ_only_at_the_bottom_compare_unequal() {
    let a = nested(&[0x91], DEPTH, &[0x01]);
    let b = nested(&[0x91], DEPTH, &[0x02]);
    on_small_stack(move || {
        let (a, b) = (
            unlimited_depth().decode(&a).unwrap(),
            unlimited_depth().decode(&b).unwrap(),
        );
        assert!(a != b);
    });
}

#[test]
fn wide_and_deep_value_built_by_hand_drops_on_small_stack() {
    on_small_stack(|| {
        let mut v = Value::Nil;
        for i in 0..200_000u32 {
            v = Value::from(vec![Value::from(i), v, Value::from(vec![Value::Nil])]);
        }
        let copy = v.clone();
        assert!(v == copy);
        drop(v);
        drop(copy);
    });
}
