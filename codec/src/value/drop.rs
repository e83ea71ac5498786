//! Dropping a value without recursion, and what that may allocate.
//!
//! A container's children are detached and dropped in one pass; a child container is emptied
//! the same way up to [`DROP_NATIVE_LEVELS`] levels down on the native stack, and deeper ones
//! wait on a heap stack. So the native stack a drop uses does not depend on the value, and the
//! heap stack holds at most one entry per pending container, which decoding charges in advance
//! ([`DROP_RESERVE_PER_CONTAINER`]).

use crate::prelude::*;
use crate::value::{Array, Map, Value};

/// Children taken out of a container so that it can be dropped without recursion.
enum Detached {
    Items(Box<[Value]>),
    Entries(Box<[(Value, Value)]>),
}

/// The size of one entry of the heap stack that dropping uses.
const DROP_STACK_ENTRY_BYTES: usize = core::mem::size_of::<Detached>();

/// Bytes charged per non-empty container for the heap stack its `Drop` may use: one stack
/// entry (a boxed slice of children and its kind), doubled for the stack's growth.
pub const DROP_RESERVE_PER_CONTAINER: usize = 2 * DROP_STACK_ENTRY_BYTES;

/// How many levels dropping may descend on the native stack before it moves the rest to a
/// heap stack. A constant, so the native stack a drop uses does not depend on the value.
const DROP_NATIVE_LEVELS: u32 = 8;

/// Drops `detached` and its children in one pass: a child container is emptied and its
/// children dropped up to `levels` further levels down on the native stack; deeper ones
/// wait on `overflow`.
fn drop_levels(detached: Detached, levels: u32, overflow: &mut Vec<Detached>) {
    match detached {
        Detached::Items(items) => {
            for item in items.into_vec() {
                drop_child(item, levels, overflow);
            }
        }
        Detached::Entries(entries) => {
            for (key, value) in entries.into_vec() {
                drop_child(key, levels, overflow);
                drop_child(value, levels, overflow);
            }
        }
    }
}

/// True if dropping this value frees memory.
#[inline(always)]
fn owns_heap(value: &Value) -> bool {
    match value {
        Value::Str(s) => s.is_heap(),
        Value::Bin(_) | Value::Ext(_) | Value::Array(_) | Value::Map(_) => true,
        Value::Nil
        | Value::Bool(_)
        | Value::Integer(_)
        | Value::F32(_)
        | Value::F64(_)
        | Value::Timestamp(_) => false,
    }
}

#[inline(always)]
fn drop_child(mut child: Value, levels: u32, overflow: &mut Vec<Detached>) {
    if !owns_heap(&child) {
        // Skipping the drop glue of scalars and inline text (a jump per variant) is most of
        // what makes dropping a document cheap.
        core::mem::forget(child);
        return;
    }
    let children = match &mut child {
        Value::Array(a) if !a.0.is_empty() => Detached::Items(core::mem::take(&mut a.0)),
        Value::Map(m) if !m.0.is_empty() => Detached::Entries(core::mem::take(&mut m.0)),
        // Heap text, bin, ext and empty containers drop shallowly.
        _ => return,
    };
    drop(child);
    match levels.checked_sub(1) {
        Some(fewer) => drop_levels(children, fewer, overflow),
        None => overflow.push(children),
    }
}

/// Drops a detached subtree in constant native stack. Values at most `DROP_NATIVE_LEVELS`
/// deep allocate nothing; deeper ones use a heap stack of one entry per pending container.
fn drop_iteratively(root: Detached) {
    let mut overflow = Vec::new();
    drop_levels(root, DROP_NATIVE_LEVELS, &mut overflow);
    while let Some(next) = overflow.pop() {
        drop_levels(next, DROP_NATIVE_LEVELS, &mut overflow);
    }
}

impl Drop for Array {
    fn drop(&mut self) {
        drop_iteratively(Detached::Items(core::mem::take(&mut self.0)));
    }
}

impl Drop for Map {
    fn drop(&mut self) {
        drop_iteratively(Detached::Entries(core::mem::take(&mut self.0)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reserve_covers_one_stack_entry_and_its_growth() {
        // 24 bytes (a boxed slice and its kind) on 64-bit targets, 12 on 32-bit ones.
        assert_eq!(
            DROP_STACK_ENTRY_BYTES,
            3 * core::mem::size_of::<usize>(),
            "a drop stack entry changed size: re-derive the reserve"
        );
        assert_eq!(DROP_RESERVE_PER_CONTAINER, 2 * DROP_STACK_ENTRY_BYTES);
    }
}
