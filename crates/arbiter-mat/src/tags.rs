//! The deck registry: tag id → card. A card-reader mat reports tags; this
//! says which card each tag is on. `arbiter mat register` writes it; the
//! bundled `calibration/deck.toml` holds the simulated deck's tags, so the
//! mat simulator works out of the box.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use arbiter_core::table::{Card, Colour, Piece, Token};
use arbiter_core::toml_text::{self, LineIndex, TomlError};

/// The bundled registry's text and the name its errors would carry.
const BUNDLED: &str = include_str!("../../../calibration/deck.toml");
const BUNDLED_NAME: &str = "calibration/deck.toml (bundled)";

/// How many cards of each piece a colour has.
pub use arbiter_core::table::DECK;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Registry {
    tags: BTreeMap<u64, Card>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRegistry {
    #[serde(default)]
    tags: BTreeMap<Spanned<String>, Spanned<String>>,
}

impl Registry {
    pub fn new() -> Registry {
        Registry::default()
    }

    /// The registry bundled in the binary (`calibration/deck.toml`: the
    /// simulated mat's deck), so that `--input serial:PORT` works from any
    /// folder with no file named.
    pub fn bundled() -> Registry {
        Registry::parse(BUNDLED_NAME, BUNDLED).expect("the bundled registry parses (tested)")
    }

    /// Where `arbiter mat register` writes a registry by default, and where
    /// a mat input looks first: `deck.toml` in the user's configuration
    /// folder (`~/.config/arbiter/` on Linux).
    pub fn user_path() -> Option<PathBuf> {
        dirs::config_dir().map(|d| d.join("arbiter").join("deck.toml"))
    }

    /// The registry a mat input uses: the file named, else the user's
    /// registered deck if there is one, else the bundled one.
    pub fn named_or_default(path: Option<&Path>) -> Result<Registry, TomlError> {
        match (path, Registry::user_path()) {
            (Some(p), _) => Registry::load(p),
            (None, Some(p)) if p.exists() => Registry::load(&p),
            _ => Ok(Registry::bundled()),
        }
    }

    /// Reads a registry file; errors name the file and, where there is
    /// one, the line.
    pub fn load(path: &Path) -> Result<Registry, TomlError> {
        let text = toml_text::read(path, "deck registry")?;
        Registry::parse(&path.display().to_string(), &text)
    }

    pub fn parse(file: &str, text: &str) -> Result<Registry, TomlError> {
        let raw: RawRegistry = toml_text::parse(file, text)?;
        let lines = LineIndex::new(text);
        let err = |line, message: String| TomlError::new(file, line, message);
        let mut tags = BTreeMap::new();
        for (tag, card) in raw.tags {
            let line = lines.line_of(tag.span().start);
            let id = u64::from_str_radix(tag.get_ref(), 16).map_err(|_| {
                err(
                    line,
                    format!(
                        "tag {:?} is not a hex number of up to 16 digits",
                        tag.get_ref()
                    ),
                )
            })?;
            let card = match Token::parse(card.get_ref()) {
                Ok(Some(Token::Up(c))) => c,
                _ => {
                    return Err(err(
                        line,
                        format!("{:?} is not a card token such as wN or bK", card.get_ref()),
                    ));
                }
            };
            tags.insert(id, card);
        }
        Ok(Registry { tags })
    }

    pub fn card(&self, tag: u64) -> Option<Card> {
        self.tags.get(&tag).copied()
    }

    pub fn insert(&mut self, tag: u64, card: Card) {
        self.tags.insert(tag, card);
    }

    pub fn len(&self) -> usize {
        self.tags.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tags.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = (u64, Card)> + '_ {
        self.tags.iter().map(|(&t, &c)| (t, c))
    }

    pub fn to_toml(&self) -> String {
        let mut s = String::from(
            "# The deck registry: the tag id (hex) of every card and the card it is on.\n\
             # Written by `arbiter mat register`; one line per physical card.\n\n[tags]\n",
        );
        for (tag, card) in &self.tags {
            let _ = writeln!(s, "{tag:016x} = \"{card}\"");
        }
        s
    }

    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(path, self.to_toml())
    }

    /// The simulated deck: every card of every colour with its own tag, two
    /// decks' worth (a table with a spare deck can show a second king).
    pub fn simulated() -> Registry {
        let mut r = Registry::new();
        for colour in Colour::ALL {
            for (piece, n) in DECK {
                for copy in 0..SIM_DECKS * n {
                    let card = Card::new(colour, piece);
                    r.insert(sim_tag(card, copy), card);
                }
            }
        }
        r
    }
}

/// How many decks the simulated registry holds.
pub const SIM_DECKS: u8 = 2;

/// The tag of the `copy`-th card of a kind in the simulated deck: readable
/// in hex (`5a` · colour · piece · copy).
pub fn sim_tag(card: Card, copy: u8) -> u64 {
    let colour = Colour::ALL
        .iter()
        .position(|&c| c == card.colour)
        .unwrap_or(0) as u64;
    let piece = Piece::ALL
        .iter()
        .position(|&p| p == card.piece)
        .unwrap_or(0) as u64;
    0x5a00_0000_0000 | (colour + 1) << 16 | (piece + 1) << 8 | u64::from(copy)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_simulated_deck_round_trips_through_its_file() {
        let r = Registry::simulated();
        assert_eq!(r.len(), 5 * 16 * SIM_DECKS as usize);
        let back = Registry::parse("deck.toml", &r.to_toml()).unwrap();
        assert_eq!(back, r);
        let wn = Card::new(Colour::White, Piece::Knight);
        assert_eq!(r.card(sim_tag(wn, 1)), Some(wn));
        assert_ne!(sim_tag(wn, 0), sim_tag(wn, 1));
    }

    #[test]
    fn the_bundled_registry_is_the_simulated_deck() {
        let path =
            Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("calibration/deck.toml");
        assert_eq!(Registry::load(&path).unwrap(), Registry::simulated());
        assert_eq!(Registry::bundled(), Registry::simulated());
    }

    #[test]
    fn bad_lines_are_named() {
        let e = Registry::parse("d.toml", "[tags]\n00ff = \"wN\"\nzz = \"wN\"\n").unwrap_err();
        assert_eq!(e.line, 3, "{e}");
        let e = Registry::parse("d.toml", "[tags]\n00ff = \"wX\"\n").unwrap_err();
        assert_eq!(e.line, 2, "{e}");
        assert!(e.message.contains("card token"));
        let e = Registry::parse("d.toml", "[tag]\n").unwrap_err();
        assert!(e.message.contains("tag"), "{e}");
    }

    #[test]
    fn an_unreadable_registry_is_named() {
        let e = Registry::load(Path::new("no/such/deck.toml")).unwrap_err();
        assert_eq!(e.line, 0);
        assert!(
            e.to_string()
                .starts_with("no/such/deck.toml: cannot read the deck registry: "),
            "{e}"
        );
    }
}
