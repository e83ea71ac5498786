//! Internal invariants that break are loud: a panic in debug builds (the tests, and the fuzz
//! builds, which run with `-O --debug-assertions`), so a fuzzer that reaches a broken invariant
//! crashes instead of being handed a plausible wrong value. Release builds have no panic path
//! and no call here at all: the caller goes on with the fallback it names at the call site.

/// Reports that an internal invariant broke.
#[inline(always)]
#[track_caller]
pub(crate) fn broken(what: &'static str) {
    #[cfg(debug_assertions)]
    broken_in_debug_build(what);
    #[cfg(not(debug_assertions))]
    let _ = what;
}

#[cfg(debug_assertions)]
#[cold]
#[inline(never)]
#[track_caller]
#[allow(clippy::panic)] // The crate's one panic, in debug builds only: a bug in hardpack.
fn broken_in_debug_build(what: &'static str) {
    panic!("hardpack internal invariant broken: {what}");
}

/// `Some(x)` is `x`; `None` reports the broken invariant `what` and gives `fallback`.
#[inline(always)]
#[track_caller]
pub(crate) fn expect_or<T>(option: Option<T>, fallback: T, what: &'static str) -> T {
    match option {
        Some(x) => x,
        None => {
            broken(what);
            fallback
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expect_or_passes_a_value_through() {
        assert_eq!(expect_or(Some(3), 0, "unused"), 3);
    }

    #[cfg(debug_assertions)]
    #[test]
    #[should_panic(expected = "hardpack internal invariant broken: on purpose")]
    fn a_broken_invariant_panics_in_a_debug_build() {
        broken("on purpose");
    }

    #[cfg(debug_assertions)]
    #[test]
    #[should_panic(expected = "hardpack internal invariant broken: missing")]
    fn expect_or_reports_a_missing_value_in_a_debug_build() {
        expect_or(None, 0, "missing");
    }

    #[cfg(not(debug_assertions))]
    #[test]
    fn a_broken_invariant_gives_the_fallback_in_a_release_build() {
        broken("on purpose");
        assert_eq!(expect_or(None, 7, "missing"), 7);
    }
}
