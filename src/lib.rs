//! sextant: a code-intelligence MCP server for coding agents.
//!
//! A tool call flows `server (MCP edge) -> tools (params -> query) -> model
//! (typed result) -> render (text)`. The modules, in reading order:

pub mod cli;
pub mod context;
pub mod error;
pub mod fs;
pub mod model;
pub mod render;
pub mod server;
pub mod tools;
