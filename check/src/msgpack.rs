//! The few MessagePack headers the kit writes by hand (payloads are built byte by byte, never
//! by a serializer, so that a hostile one can be anything).

/// A str header and its bytes, in the smallest form.
pub(crate) fn str_bytes(text: &str) -> Vec<u8> {
    let mut out = sized_header(text.len(), 0xa0, 32, [0xd9, 0xda, 0xdb]);
    out.extend_from_slice(text.as_bytes());
    out
}

/// A bin header and its bytes, in the smallest form.
pub(crate) fn bin_bytes(data: &[u8]) -> Vec<u8> {
    let mut out = sized_header(data.len(), 0, 0, [0xc4, 0xc5, 0xc6]);
    out.extend_from_slice(data);
    out
}

/// A header of a length with a fixed form below `fix_below` (marker `fix | len`) and 8-, 16-
/// and 32-bit forms.
fn sized_header(len: usize, fix: u8, fix_below: usize, wide: [u8; 3]) -> Vec<u8> {
    if len < fix_below {
        vec![fix | len as u8]
    } else if len <= 0xff {
        vec![wide[0], len as u8]
    } else if len <= 0xffff {
        [&[wide[1]][..], &(len as u16).to_be_bytes()].concat()
    } else {
        [&[wide[2]][..], &(len as u32).to_be_bytes()].concat()
    }
}

pub(crate) fn array_header(len: usize) -> Vec<u8> {
    collection_header(len, 0x90, [0xdc, 0xdd])
}

pub(crate) fn map_header(len: usize) -> Vec<u8> {
    collection_header(len, 0x80, [0xde, 0xdf])
}

fn collection_header(len: usize, fix: u8, wide: [u8; 2]) -> Vec<u8> {
    if len < 16 {
        vec![fix | len as u8]
    } else if len <= 0xffff {
        [&[wide[0]][..], &(len as u16).to_be_bytes()].concat()
    } else {
        [&[wide[1]][..], &(len as u32).to_be_bytes()].concat()
    }
}

pub(crate) fn uint_bytes(n: u64) -> Vec<u8> {
    if n < 0x80 {
        vec![n as u8]
    } else if n <= 0xff {
        vec![0xcc, n as u8]
    } else if n <= 0xffff {
        [&[0xcd][..], &(n as u16).to_be_bytes()].concat()
    } else if n <= 0xffff_ffff {
        [&[0xce][..], &(n as u32).to_be_bytes()].concat()
    } else {
        [&[0xcf][..], &n.to_be_bytes()].concat()
    }
}

pub(crate) fn int_bytes(n: i64) -> Vec<u8> {
    if n >= 0 {
        uint_bytes(n as u64)
    } else if n >= -32 {
        vec![n as u8]
    } else if n >= -128 {
        vec![0xd0, n as u8]
    } else if n >= -32768 {
        [&[0xd1][..], &(n as i16).to_be_bytes()].concat()
    } else if n >= -(1 << 31) {
        [&[0xd2][..], &(n as i32).to_be_bytes()].concat()
    } else {
        [&[0xd3][..], &n.to_be_bytes()].concat()
    }
}

/// Any integer from `i64::MIN` to `u64::MAX` in its smallest form (beyond, the nearest).
pub(crate) fn integer_bytes(n: i128) -> Vec<u8> {
    if n < 0 {
        int_bytes(i64::try_from(n).unwrap_or(i64::MIN))
    } else {
        uint_bytes(u64::try_from(n).unwrap_or(u64::MAX))
    }
}
