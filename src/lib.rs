//! sextant: a code-intelligence MCP server for coding agents.
//!
//! A tool call flows `server (MCP edge) -> tools (params -> query) -> model
//! (typed result) -> render (text)`. ARCHITECTURE.md has the map.

pub mod cli;
pub mod context;
pub mod doctor;
pub mod error;
pub mod fast_map;
pub mod fs;
pub mod index;
pub mod logbook;
pub mod lsp;
pub mod model;
pub mod progress;
pub mod render;
pub mod server;
pub mod stable_hash;
pub mod sync;
pub mod syntax;
pub mod tools;
pub mod waits;
