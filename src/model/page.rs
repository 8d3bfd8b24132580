//! Which part of a list an answer shows.

/// A page of a list: where it starts, how much of it is shown, how long
/// the list is, and where the next page starts (`None` on the last).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Page {
    pub offset: usize,
    pub shown: usize,
    pub total: usize,
    pub next_offset: Option<usize>,
}

impl Page {
    /// The whole list fits on this page.
    pub fn is_whole(&self) -> bool {
        self.offset == 0 && self.next_offset.is_none()
    }

    /// Entries after the page.
    pub fn left(&self) -> usize {
        self.next_offset
            .map_or(0, |next| self.total.saturating_sub(next))
    }
}
