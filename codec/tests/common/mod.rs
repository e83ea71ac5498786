//! What several test files share.

use proptest::prelude::*;

/// A document generator biased towards structure: containers, strs, bins, exts.
pub fn documents() -> impl Strategy<Value = Vec<u8>> {
    let item = prop_oneof![
        Just(vec![0xc0]),
        (0u8..16).prop_map(|n| vec![0x90 | n]),
        (0u8..16).prop_map(|n| vec![0x80 | n]),
        (0u8..40).prop_map(|n| {
            let mut v = vec![0xd9, n];
            v.extend(std::iter::repeat_n(b'a', usize::from(n)));
            v
        }),
        (0u8..8).prop_map(|n| vec![0xc4, n, 1, 2, 3]),
        Just(vec![0xd6, 0xff, 0, 0, 0, 1]),
        Just(vec![0xd4, 0x05, 0x01]),
        any::<u8>().prop_map(|b| vec![b]),
    ];
    prop::collection::vec(item, 0..40).prop_map(|items| items.concat())
}

