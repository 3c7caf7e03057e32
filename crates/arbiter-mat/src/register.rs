//! `arbiter mat register`: learn the deck's tags by having each card laid
//! on the mat once, alone.

use std::io::Write;
use std::time::{Duration, Instant};

use crate::host::{LinkError, MatLink};
use crate::tags::{DECK, Registry};
use arbiter_core::table::{Card, Colour};

/// Walks the players through every card of `colours`, in deck order, and
/// returns the registry it learned. Prompts go to `out`.
pub fn register(
    link: &mut MatLink,
    colours: &[Colour],
    out: &mut impl Write,
) -> Result<Registry, LinkError> {
    let mut registry = Registry::new();
    let say = |out: &mut dyn Write, s: String| {
        let _ = writeln!(out, "{s}");
        let _ = out.flush();
    };
    // The mat must start empty, or a card left on it would be taken for
    // the first one asked for.
    wait_for_empty(link, out)?;
    for &colour in colours {
        for (piece, n) in DECK {
            for k in 0..n {
                let card = Card::new(colour, piece);
                let of = if n > 1 {
                    format!(" ({} of {n})", k + 1)
                } else {
                    String::new()
                };
                say(
                    out,
                    format!("Lay the {}{of} face-up on the mat, alone.", card.describe()),
                );
                loop {
                    next_settled(link)?;
                    let cards = link.host.cards();
                    match cards.as_slice() {
                        [(_, tag, true)] => match registry.card(*tag) {
                            Some(c) => say(
                                out,
                                format!(
                                    "  That tag is already the {}: lay the next card.",
                                    c.describe()
                                ),
                            ),
                            None => {
                                registry.insert(*tag, card);
                                say(out, format!("  Tag {tag:016x} is the {card}. Lift it off."));
                                break;
                            }
                        },
                        [(_, _, false)] => {
                            say(out, "  It lies face-down: turn it face-up.".to_string())
                        }
                        [] => {}
                        _ => say(
                            out,
                            "  One card at a time: lift the others off.".to_string(),
                        ),
                    }
                }
                wait_for_empty(link, out)?;
            }
        }
    }
    Ok(registry)
}

fn next_settled(link: &mut MatLink) -> Result<(), LinkError> {
    loop {
        if link
            .settled(Instant::now() + Duration::from_secs(3600))?
            .is_some()
        {
            return Ok(());
        }
    }
}

fn wait_for_empty(link: &mut MatLink, out: &mut impl Write) -> Result<(), LinkError> {
    if link.host.cards().is_empty() {
        return Ok(());
    }
    let _ = writeln!(out, "  Clear the mat.");
    while !link.host.cards().is_empty() {
        next_settled(link)?;
    }
    Ok(())
}
