//! The open containers of a read in progress, as counts: what every surface that does not
//! build a `Value` tree (the validator, the token reader, the borrowed tape) keeps to know
//! where an item belongs, how deep it is and what the open containers still expect.

/// The open containers as the item count at which each one closes, innermost last, in
/// storage sized by the owner (a fixed array for the validator, a vector grown and charged by
/// the readers that own one), and one running count of the items the open containers still
/// expect. An item costs a decrement and a comparison with the innermost container's close;
/// no per-container count is written back.
pub(crate) struct Nesting<C> {
    /// For each open container, the value of `pending` once its last child is done.
    closes: C,
    /// Open containers: the first `open` entries of `closes` are live.
    open: usize,
    /// Items the open containers still expect, the one being read included (0 at the top
    /// level).
    pending: usize,
}

impl<C: AsRef<[usize]> + AsMut<[usize]>> Nesting<C> {
    pub(crate) fn new(closes: C) -> Self {
        Nesting {
            closes,
            open: 0,
            pending: 0,
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
            Some(slot) => *slot = rest,
            None => crate::invariant::broken("a container opened without room for its count"),
        }
        self.pending = rest.saturating_add(items);
        self.open = self.open.saturating_add(1);
    }

    /// One item finished: counts it, closing (and telling `on_close` about) every container
    /// it completes. True when it finished the top-level value.
    #[inline(always)]
    pub(crate) fn item_done(&mut self, mut on_close: impl FnMut()) -> bool {
        if self.open == 0 {
            return true;
        }
        self.pending = self.pending.saturating_sub(1);
        loop {
            let top = self
                .open
                .checked_sub(1)
                .and_then(|at| self.closes.as_ref().get(at));
            match top {
                Some(&close) if close == self.pending => {
                    self.open = self.open.saturating_sub(1);
                    on_close();
                }
                Some(_) => return false,
                None => return true,
            }
        }
    }
}
