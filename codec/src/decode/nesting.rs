//! The open containers of a read in progress, as counts: what every surface that does not
//! build a `Value` tree (the validator, the token reader, the borrowed tape) keeps to know
//! where an item belongs, how deep it is and what the open containers still expect.

/// One count per open container (the items it still expects, a map's keys and values one
/// each), innermost last, in storage sized by the owner: a fixed array for the validator, a
/// vector grown (and charged) by the readers that own one.
pub(crate) struct Nesting<C> {
    counts: C,
    /// Open containers: the first `open` counts are live.
    open: usize,
    /// Sum of the counts of every open container but the innermost.
    pending_outside: usize,
}

impl<C: AsRef<[usize]> + AsMut<[usize]>> Nesting<C> {
    pub(crate) fn new(counts: C) -> Self {
        Nesting {
            counts,
            open: 0,
            pending_outside: 0,
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
        self.open < self.counts.as_ref().len()
    }

    /// The storage, for an owner that grows it.
    pub(crate) fn counts_mut(&mut self) -> &mut C {
        &mut self.counts
    }

    #[inline(always)]
    fn top_left(&self) -> usize {
        let left = self
            .open
            .checked_sub(1)
            .and_then(|at| self.counts.as_ref().get(at));
        left.copied().unwrap_or(0)
    }

    /// Items the open containers still expect after the one being read now.
    #[inline(always)]
    pub(crate) fn pending_after_current(&self) -> usize {
        self.pending_outside
            .saturating_add(self.top_left())
            .saturating_sub(self.open)
    }

    /// Opens a container of `items` > 0 items (a map's keys and values one each). The owner
    /// has made room (see [`has_room`](Self::has_room)).
    #[inline]
    pub(crate) fn push(&mut self, items: usize) {
        if self.open > 0 {
            self.pending_outside = self.pending_outside.saturating_add(self.top_left());
        }
        match self.counts.as_mut().get_mut(self.open) {
            Some(slot) => *slot = items,
            None => crate::invariant::broken("a container opened without room for its count"),
        }
        self.open = self.open.saturating_add(1);
    }

    /// One item finished: counts it in its container, closing (and telling `on_close`
    /// about) every container it completes. True when it finished the top-level value.
    #[inline(always)]
    pub(crate) fn item_done(&mut self, mut on_close: impl FnMut()) -> bool {
        loop {
            let Some(left) = self
                .open
                .checked_sub(1)
                .and_then(|at| self.counts.as_mut().get_mut(at))
            else {
                return true;
            };
            *left = left.saturating_sub(1);
            if *left > 0 {
                return false;
            }
            self.open = self.open.saturating_sub(1);
            on_close();
            if self.open > 0 {
                self.pending_outside = self.pending_outside.saturating_sub(self.top_left());
            }
        }
    }
}
