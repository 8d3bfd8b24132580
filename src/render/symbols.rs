//! Text for the symbol tools: the header line every answer that takes a
//! symbol address starts with.

use crate::model::Target;

/// `inspect Registry.add (Method) at src/shapes.ts:49:3`, or, for an
/// identifier that declares nothing there, `inspect totalArea at
/// src/index.ts:7:22`; then a `Note:` line when the address needed reading
/// (the nearest identifier, the first of several overloads).
pub fn target_header(tool: &str, target: &Target) -> String {
    let mut header = match &target.declaration {
        Some((path, kind)) => format!("{tool} {path} ({})", kind.name()),
        None => format!("{tool} {}", target.name),
    };
    header.push_str(&format!(" at {}:{}", target.path, target.position));
    if let Some(note) = &target.note {
        header.push_str(&format!("\nNote: {note}"));
    }
    header
}
