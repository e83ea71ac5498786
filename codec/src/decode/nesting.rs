//! The open containers of a read in progress, as counts: what every surface that does not
//! build a `Value` tree (the validator, the token reader, the borrowed tape) keeps to know
//! where an item belongs, how deep it is and what the open containers still expect.

/// The open containers as the item count at which each one closes, and one running count of
/// the items the open containers still expect. The innermost container's close is held
/// apart from the others (in storage sized by the owner: a fixed array for the validator, a
/// vector grown and charged by the readers that own one), so an item costs a decrement and
/// one comparison with it; no per-container count is written back.
///
/// The top level is a level too, expecting one item and closing at zero: when the count
/// reaches the innermost close and nothing is open, the value is complete, and the count is
/// set to expect the next one (a reader of values back to back reuses its nesting).
pub(crate) struct Nesting<C> {
    /// For each open container but the innermost, from the outermost: the value of `pending`
    /// once its last child is done.
    closes: C,
    /// Open containers: the first `open` entries of `closes` are live, the innermost's close
    /// being `innermost_close`.
    open: usize,
    /// The value of `pending` once the innermost open container (the top level when none is
    /// open: 0) has its last child.
    innermost_close: usize,
    /// Items the open containers still expect, the one being read included (1 at the top
    /// level).
    pending: usize,
}

impl<C: AsRef<[usize]> + AsMut<[usize]>> Nesting<C> {
    pub(crate) fn new(closes: C) -> Self {
        Nesting {
            closes,
            open: 0,
            innermost_close: 0,
            pending: 1,
        }
    }

    /// Containers open around the next item.
    #[inline(always)]
    pub(crate) fn depth(&self) -> usize {
        self.open
    }

    /// Whether the storage has room for one more open container.
    #[inline(always)]
    pub(crate) fn has_room(&self) -> bool {
        self.open < self.closes.as_ref().len()
    }

    /// The storage, for an owner that grows it.
    pub(crate) fn counts_mut(&mut self) -> &mut C {
        &mut self.closes
    }

    /// Items the open containers still expect after the one being read now.
    #[inline(always)]
    pub(crate) fn pending_after_current(&self) -> usize {
        self.pending.saturating_sub(1)
    }

    /// Opens a container of `items` > 0 items (a map's keys and values one each): it is the
    /// item being read, and its children are expected in its place. The owner has made room
    /// (see [`has_room`](Self::has_room)).
    #[inline]
    pub(crate) fn push(&mut self, items: usize) {
        let rest = self.pending.saturating_sub(1);
        match self.closes.as_mut().get_mut(self.open) {
            Some(slot) => *slot = self.innermost_close,
            None => crate::invariant::broken("a container opened without room for its count"),
        }
        self.innermost_close = rest;
        self.pending = rest.saturating_add(items);
        self.open = self.open.saturating_add(1);
    }

    /// One item finished: counts it, closing (and telling `on_close` about) every container
    /// it completes. True when it finished the top-level value.
    #[inline(always)]
    pub(crate) fn item_done(&mut self, on_close: impl FnMut()) -> bool {
        self.pending = self.pending.saturating_sub(1);
        if self.pending != self.innermost_close {
            return false;
        }
        self.close(on_close)
    }

    /// The innermost level has its last item: closes it and every level that completes with
    /// it. True when that was the top level.
    #[inline]
    fn close(&mut self, mut on_close: impl FnMut()) -> bool {
        while self.pending == self.innermost_close {
            let Some(outer) = self.open.checked_sub(1) else {
                // The top level's one item is done: expect the next value.
                self.pending = 1;
                return true;
            };
            self.open = outer;
            on_close();
            self.innermost_close = match self.closes.as_ref().get(outer) {
                Some(&close) => close,
                None => {
                    crate::invariant::broken("an open container without its count");
                    0
                }
            };
        }
        false
    }
}
