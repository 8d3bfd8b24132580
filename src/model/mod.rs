//! The typed results of the tools: plain data, no behaviour.
//!
//! A tool computes one of these; a renderer in `render/` turns it into text;
//! with `format: "json"` it is serialised as is. Paths are already in their
//! display form (relative to the workspace root when inside it), positions in
//! sextant's own 1-based line:character form. Every result holds exactly the
//! page it shows plus the totals needed to say what it left out, so renderers
//! never have to guess.

mod files;
mod navigation;
mod outline;
mod page;
mod pipe;
mod search;
mod servers;
mod symbols;

pub use files::*;
pub use navigation::*;
pub use outline::*;
pub use page::*;
pub use pipe::*;
pub use search::*;
pub use servers::*;
pub use symbols::*;
