//! Assembles owned values from tokens without recursion, charging every allocation to a
//! budget first.
//!
//! Completed children of all open containers wait in one scratch vector; when a container's
//! last child arrives, its children are moved out of the scratch into a boxed slice of
//! exactly their number. So nothing is reserved on the strength of a claimed length: memory
//! follows the values actually read, which each took at least one byte of input.

use std::mem::size_of;

use crate::error::{ErrorKind, Limit};
use crate::limits::{Limits, DROP_RESERVE_PER_CONTAINER};
use crate::traverse::Token;
use crate::value::{Array, Map, Value};

struct OpenContainer {
    is_map: bool,
    /// Index in the scratch of its first child.
    start: usize,
    /// Children still to come (keys and values count one each).
    left: usize,
}

/// The running total of heap bytes charged, against its maximum.
struct Budget {
    used: usize,
    max: usize,
}

impl Budget {
    fn charge(&mut self, bytes: usize) -> Result<(), ErrorKind> {
        match self.used.checked_add(bytes) {
            Some(total) if total <= self.max => {
                self.used = total;
                Ok(())
            }
            total => Err(ErrorKind::LimitExceeded {
                limit: Limit::AllocBytes,
                max: self.max,
                claimed: total.unwrap_or(usize::MAX),
            }),
        }
    }
}

/// Grows `v` by at least one slot, charging the new capacity before asking for it. Growth
/// doubles, but never past `most_needed` slots, which the caller knows can be enough.
fn grow<T>(v: &mut Vec<T>, most_needed: usize, budget: &mut Budget) -> Result<(), ErrorKind> {
    let doubled = v.capacity().max(8).saturating_mul(2);
    let target = doubled.min(most_needed).max(v.len().saturating_add(1));
    let extra = target.saturating_sub(v.len());
    let bytes = extra.saturating_mul(size_of::<T>());
    budget.charge(bytes)?;
    v.try_reserve_exact(extra)
        .map_err(|_| ErrorKind::OutOfMemory { bytes })
}

fn push_charged<T>(
    v: &mut Vec<T>,
    item: T,
    most_needed: usize,
    budget: &mut Budget,
) -> Result<(), ErrorKind> {
    if v.len() == v.capacity() {
        grow(v, most_needed, budget)?;
    }
    v.push(item);
    Ok(())
}

/// Builds one value from a token stream.
pub(crate) struct Builder {
    scratch: Vec<Value>,
    open: Vec<OpenContainer>,
    /// Sum of `left` over `open`.
    pending: usize,
    max_depth: usize,
    budget: Budget,
}

impl Builder {
    pub(crate) fn new(limits: &Limits) -> Self {
        Builder {
            scratch: Vec::new(),
            open: Vec::new(),
            pending: 0,
            max_depth: limits.max_depth,
            budget: Budget {
                used: 0,
                max: limits.max_alloc_bytes,
            },
        }
    }

    /// A builder with no depth or allocation limit, for copying values that already exist.
    pub(crate) fn unbounded() -> Self {
        Builder::new(&Limits::unlimited())
    }

    /// Containers open around the next item.
    pub(crate) fn depth(&self) -> usize {
        self.open.len()
    }

    /// Items the open containers still need after the one being read now; each needs at
    /// least one more byte of input. In every open container one slot is in progress (taken
    /// by the open container inside it, or by the item being read), so it is not counted.
    pub(crate) fn pending_after_current(&self) -> usize {
        self.pending.saturating_sub(self.open.len())
    }

    /// Heap bytes charged so far.
    pub(crate) fn charged(&self) -> usize {
        self.budget.used
    }

    /// Takes one token. Returns the finished value when the token completed the top level.
    pub(crate) fn push_token(&mut self, token: Token<'_>) -> Result<Option<Value>, ErrorKind> {
        let value = match token {
            Token::Nil => Value::Nil,
            Token::Bool(b) => Value::Bool(b),
            Token::Integer(n) => Value::Integer(n),
            Token::F32(x) => Value::F32(x),
            Token::F64(x) => Value::F64(x),
            Token::Timestamp(ts) => Value::Timestamp(ts),
            Token::Str(s) => Value::Str(self.owned_str(s)?),
            Token::Bin(b) => Value::Bin(self.owned_bytes(b)?),
            Token::Ext(t, b) => Value::Ext(t, self.owned_bytes(b)?),
            Token::Array(n) => return self.open(false, n),
            Token::Map(n) => return self.open(true, n),
        };
        self.complete(value)
    }

    /// A charged, fallible copy of `bytes`.
    pub(crate) fn owned_bytes(&mut self, bytes: &[u8]) -> Result<Box<[u8]>, ErrorKind> {
        if bytes.is_empty() {
            return Ok(Box::default());
        }
        self.budget.charge(bytes.len())?;
        let mut owned = Vec::new();
        owned
            .try_reserve_exact(bytes.len())
            .map_err(|_| ErrorKind::OutOfMemory { bytes: bytes.len() })?;
        owned.extend_from_slice(bytes);
        Ok(owned.into_boxed_slice())
    }

    /// A charged, fallible copy of `s`.
    pub(crate) fn owned_str(&mut self, s: &str) -> Result<Box<str>, ErrorKind> {
        if s.is_empty() {
            return Ok(Box::default());
        }
        self.budget.charge(s.len())?;
        let mut owned = String::new();
        owned
            .try_reserve_exact(s.len())
            .map_err(|_| ErrorKind::OutOfMemory { bytes: s.len() })?;
        owned.push_str(s);
        Ok(owned.into_boxed_str())
    }

    /// Charges `bytes` to the budget, for memory a caller is about to allocate.
    pub(crate) fn charge(&mut self, bytes: usize) -> Result<(), ErrorKind> {
        self.budget.charge(bytes)
    }

    fn open(&mut self, is_map: bool, len: usize) -> Result<Option<Value>, ErrorKind> {
        let depth = self.open.len().saturating_add(1);
        if depth > self.max_depth {
            return Err(ErrorKind::LimitExceeded {
                limit: Limit::Depth,
                max: self.max_depth,
                claimed: depth,
            });
        }
        if len == 0 {
            let empty = if is_map {
                Value::Map(Map::default())
            } else {
                Value::Array(Array::default())
            };
            return self.complete(empty);
        }
        let left = if is_map { len.saturating_mul(2) } else { len };
        push_charged(
            &mut self.open,
            OpenContainer {
                is_map,
                start: self.scratch.len(),
                left,
            },
            usize::MAX,
            &mut self.budget,
        )?;
        self.pending = self.pending.saturating_add(left);
        Ok(None)
    }

    /// Files a finished value under the innermost open container, closing every container it
    /// completes. Returns the top-level value once it is finished.
    fn complete(&mut self, mut value: Value) -> Result<Option<Value>, ErrorKind> {
        loop {
            let Some(top) = self.open.last_mut() else {
                return Ok(Some(value));
            };
            top.left = top.left.saturating_sub(1);
            self.pending = self.pending.saturating_sub(1);
            let finished = top.left == 0;
            // Every slot still open will need a place in the scratch, and no more.
            let most_needed = self
                .scratch
                .len()
                .saturating_add(1)
                .saturating_add(self.pending);
            push_charged(&mut self.scratch, value, most_needed, &mut self.budget)?;
            if !finished {
                return Ok(None);
            }
            let Some(container) = self.open.pop() else {
                return Ok(None);
            };
            value = self.close(&container)?;
        }
    }

    /// Moves the children of a finished container out of the scratch into their own box.
    fn close(&mut self, container: &OpenContainer) -> Result<Value, ErrorKind> {
        if container.start == 0 && self.open.is_empty() && !container.is_map {
            // The top-level array holds the whole scratch: hand the scratch over, no copy.
            self.budget.charge(DROP_RESERVE_PER_CONTAINER)?;
            let items = std::mem::take(&mut self.scratch);
            return Ok(Value::Array(Array::from(items)));
        }
        let children = self.scratch.len().saturating_sub(container.start);
        let bytes = children
            .saturating_mul(size_of::<Value>())
            .saturating_add(DROP_RESERVE_PER_CONTAINER);
        self.budget.charge(bytes)?;
        let oom = ErrorKind::OutOfMemory { bytes };
        let mut drained = self.scratch.drain(container.start..);
        if container.is_map {
            let mut entries = Vec::new();
            entries.try_reserve_exact(children / 2).map_err(|_| oom)?;
            while let (Some(k), Some(v)) = (drained.next(), drained.next()) {
                entries.push((k, v));
            }
            Ok(Value::Map(Map::from(entries)))
        } else {
            let mut items = Vec::new();
            items.try_reserve_exact(children).map_err(|_| oom)?;
            items.extend(drained);
            Ok(Value::Array(Array::from(items)))
        }
    }
}
