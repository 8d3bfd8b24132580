//! One answer's page of a list: the entries from the offset asked for, at
//! most the limit asked for, while the text they render to stays within
//! the answer's budget; the first entry on the page always goes in, so an
//! answer is never empty. A tool offers each entry with its size as its
//! renderer writes it (ripgrep's printers count what they wrote the same
//! way), never a guess, and the page it ends with says what was shown,
//! skipped and left, for the one footer (`render::page`).

use super::BUDGET_CHARS;
use crate::model::Page;

/// Admits a list's entries into one answer.
#[derive(Debug, Clone)]
pub struct Pager {
    offset: usize,
    limit: usize,
    budget: usize,
    /// Entries seen so far (skipped, shown or left).
    seen: usize,
    shown: usize,
    used: usize,
    /// Where the next page starts, once one entry did not fit.
    next: Option<usize>,
}

impl Pager {
    /// Entries from `offset` on, at most `limit` (none: as many as fit).
    pub fn new(offset: usize, limit: Option<usize>) -> Pager {
        Pager {
            offset,
            limit: limit.unwrap_or(usize::MAX).max(1),
            budget: BUDGET_CHARS,
            seen: 0,
            shown: 0,
            used: 0,
            next: None,
        }
    }

    /// Counts `chars` of the answer's text that are not entries (a header,
    /// a section the page sits in) against the budget.
    pub fn reserve(mut self, chars: usize) -> Pager {
        self.used += chars;
        self
    }

    /// Skips the next entry when it comes before the page; whether it did
    /// (the caller then neither builds nor measures it).
    pub fn skip(&mut self) -> bool {
        if self.seen < self.offset {
            self.seen += 1;
            true
        } else {
            false
        }
    }

    /// Skips `n` entries before the page at once (a file's worth), when
    /// they all come before it; whether it did.
    pub fn skip_many(&mut self, n: usize) -> bool {
        if self.seen + n <= self.offset {
            self.seen += n;
            true
        } else {
            false
        }
    }

    /// Offers the next entry, `size` characters as rendered: whether it
    /// goes on the page. Once one does not, the page is full: that entry
    /// starts the next page and no later one is admitted.
    pub fn admit(&mut self, size: usize) -> bool {
        if self.skip() {
            return false;
        }
        if self.next.is_some() {
            self.seen += 1;
            return false;
        }
        if self.shown == self.limit || (self.shown > 0 && self.used + size > self.budget) {
            self.next = Some(self.seen);
            self.seen += 1;
            return false;
        }
        self.seen += 1;
        self.shown += 1;
        self.used += size;
        true
    }

    /// Adds `chars` to what the page's text holds (an entry's part that is
    /// rendered only once it is on the page, or a line it shares).
    pub fn add(&mut self, chars: usize) {
        self.used += chars;
    }

    /// The page is full: no later entry is admitted.
    pub fn is_full(&self) -> bool {
        self.next.is_some()
    }

    /// Entries shown so far.
    pub fn shown(&self) -> usize {
        self.shown
    }

    /// The page, in a list of `total` entries.
    pub fn page(&self, total: usize) -> Page {
        Page {
            offset: self.offset,
            shown: self.shown,
            total,
            next_offset: self
                .next
                .or((self.offset + self.shown < total).then_some(self.offset + self.shown)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sizes(pager: &mut Pager, sizes: &[usize]) -> Vec<bool> {
        sizes.iter().map(|&size| pager.admit(size)).collect()
    }

    #[test]
    fn entries_before_the_offset_are_skipped_and_the_limit_ends_the_page() {
        let mut pager = Pager::new(2, Some(2));
        assert_eq!(
            sizes(&mut pager, &[1, 1, 1, 1, 1]),
            [false, false, true, true, false]
        );
        assert_eq!(
            pager.page(5),
            Page {
                offset: 2,
                shown: 2,
                total: 5,
                next_offset: Some(4)
            }
        );
    }

    #[test]
    fn the_budget_ends_the_page_but_the_first_entry_always_goes_in() {
        let mut pager = Pager::new(0, None).reserve(BUDGET_CHARS - 10);
        assert_eq!(
            sizes(&mut pager, &[50, 5, 6, 1]),
            [true, false, false, false]
        );
        assert_eq!(pager.page(4).next_offset, Some(1));
        let mut pager = Pager::new(0, None);
        assert_eq!(
            sizes(&mut pager, &[BUDGET_CHARS - 5, 5, 1]),
            [true, true, false]
        );
        assert_eq!(pager.page(3).next_offset, Some(2));
    }

    #[test]
    fn a_whole_list_has_no_next_page() {
        let mut pager = Pager::new(0, Some(10));
        assert_eq!(sizes(&mut pager, &[1, 1]), [true, true]);
        assert!(pager.page(2).is_whole());
        // Past the end: nothing shown, no next page.
        let pager = Pager::new(5, None);
        assert_eq!(pager.page(3).next_offset, None);
    }
}
