//! hardpack's structure-aware mutator ([`hardpack_harness::mutator`]) for AFL++, which loads
//! it from `AFL_CUSTOM_MUTATOR_LIBRARY` and calls the C functions below. `HARDPACK_TARGET`
//! names the target being fuzzed (its payload may follow a limits header); for a target that
//! does not read MessagePack, and an input that does not parse, it flips one bit.
//!
//! AFL++'s own stages still run beside it (`AFL_CUSTOM_MUTATOR_ONLY` is not set), so this
//! mutator's fallback for an input it cannot parse is a single random byte change.

use std::os::raw::{c_uint, c_void};

/// What AFL++ hands back to every call: the buffer the mutated input is written to.
struct State {
    buffer: Vec<u8>,
    payload_at: Option<usize>,
    seed: u64,
}

/// # Safety
/// Called by AFL++ once, before any other function here.
#[no_mangle]
pub unsafe extern "C" fn afl_custom_init(_afl: *mut c_void, seed: c_uint) -> *mut c_void {
    let target = std::env::var("HARDPACK_TARGET").unwrap_or_default();
    let state = Box::new(State {
        buffer: Vec::new(),
        payload_at: hardpack_harness::mutator::payload_offset(&target),
        seed: u64::from(seed),
    });
    Box::into_raw(state).cast()
}

/// One mutation of `buf[..buf_size]`, at most `max_size` bytes, written to a buffer this
/// library owns; `*out_buf` points to it until the next call.
///
/// # Safety
/// `data` is what `afl_custom_init` returned; `buf` holds `buf_size` bytes; `out_buf` is
/// writable. (The splice input `add_buf` is not used.)
#[no_mangle]
pub unsafe extern "C" fn afl_custom_fuzz(
    data: *mut c_void,
    buf: *mut u8,
    buf_size: usize,
    out_buf: *mut *mut u8,
    _add_buf: *mut u8,
    _add_buf_size: usize,
    max_size: usize,
) -> usize {
    let state = &mut *data.cast::<State>();
    let input = std::slice::from_raw_parts(buf, buf_size);
    let size = buf_size.min(max_size);
    state.buffer.clear();
    state.buffer.extend_from_slice(&input[..size]);
    state.buffer.resize(max_size.max(size), 0);
    state.seed = state.seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
    let seed = (state.seed >> 32) as u32;
    // The fallback (an input that does not parse, or a target that does not read
    // MessagePack): one bit flipped; AFL++'s own stages do the rest of the byte-level work.
    let flip_a_bit = |data: &mut [u8], size: usize, _max: usize| {
        if size > 0 {
            data[seed as usize % size] ^= 1 << (seed % 8);
        }
        size
    };
    let new_size = match state.payload_at {
        Some(at) => hardpack_harness::mutator::mutate(
            &mut state.buffer,
            size,
            max_size,
            seed,
            at,
            flip_a_bit,
        ),
        None => flip_a_bit(&mut state.buffer, size, max_size),
    };
    *out_buf = state.buffer.as_mut_ptr();
    new_size
}

/// # Safety
/// `data` is what `afl_custom_init` returned, not used after this call.
#[no_mangle]
pub unsafe extern "C" fn afl_custom_deinit(data: *mut c_void) {
    drop(Box::from_raw(data.cast::<State>()));
}
