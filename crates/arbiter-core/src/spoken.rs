//! Spoken words: what a voice at the table says of an event (`--speak`).
//!
//! Players look at the cards, not at a screen, so a spoken flag must be
//! understood with nothing to look at: no cell coordinates ("(2,0)" means
//! nothing said aloud), no rule IDs, a player or a piece named as players
//! name them ("White's bishop"), what is wrong and how to mend it, in a
//! couple of short sentences. The messages of the event stream are written
//! for a screen beside the cells they highlight; the words here are derived
//! from a flag's structured fields where they say enough (its kind, its
//! player), from the message's fixed shape for the slips players make most
//! (En Prise's missed SWAP and FLIP), and otherwise from the message itself:
//! its coordinates and asides taken out, its explanation dropped when the
//! whole is too long to hear, its mend kept.
//!
//! Chessboard squares ("e4") are kept: chess players say them.
//!
//! Pure functions, no I/O: the speaker (`arbiter::speak`) decides when and
//! whether to say them.

use crate::event::{EventBody, Flag, FlagKind, GameResult, How};

/// A flag's words aim at this many at most: speech is slow, and a long
/// sentence is still being spoken when the players have moved on. A
/// longer message is cut down to what is wrong and how to mend it.
pub const AIM_WORDS: usize = 20;

/// No phrase is longer than this: a few words over the aim rather than
/// what is wrong, or the mend, cut short.
pub const MOST_WORDS: usize = 25;

/// What is said of the event, if anything: flags, their mending, checks,
/// mates, eliminations and the game's end. Actions, notices and the
/// game's start are not spoken: players see their own moves.
pub fn event(body: &EventBody) -> Option<String> {
    match body {
        EventBody::Flag(f) => Some(flag(f)),
        EventBody::Cleared { how, .. } => Some(cleared(*how).to_string()),
        EventBody::Check { player, .. } => Some(format!("Check to {}.", title(player))),
        EventBody::Checkmate { player } => Some(format!("Checkmate to {}.", title(player))),
        EventBody::Eliminated { player } => Some(format!("{} is out of the game.", title(player))),
        EventBody::GameOver {
            result: GameResult::Win,
            winner: Some(w),
        } => Some(format!("Game over: {} wins.", title(w))),
        EventBody::GameOver { .. } => Some("Game over: a draw.".to_string()),
        EventBody::GameStarted { .. } | EventBody::Action(_) | EventBody::Notice { .. } => None,
    }
}

/// What is said when a flag is cleared.
pub fn cleared(how: How) -> &'static str {
    match how {
        How::Mended => "Mended.",
        How::TakenBack => "Taken back.",
    }
}

/// What is said of a flag.
pub fn flag(f: &Flag) -> String {
    let said = if f.reads_several_ways() {
        several_ways(f)
    } else {
        shaped(f).unwrap_or_else(|| plain(f))
    };
    // Whatever the path, nothing that is not speech comes out.
    let said = join(&[tidy(&said)]);
    if said.is_empty() {
        // An empty message: the kind alone still tells the players where
        // to look.
        return format!("{}: look at the screen.", capitalise(kind_words(f.kind)));
    }
    said
}

/// A player's or a team's name as said: "white" is "White".
pub fn title(name: &str) -> String {
    capitalise(name)
}

/// The kind of a flag in words, for a flag whose message says nothing.
/// Every kind is named here: a new kind does not compile until it has
/// words.
pub fn kind_words(kind: FlagKind) -> &'static str {
    match kind {
        FlagKind::IllegalPlacement => "an illegal placement",
        FlagKind::IllegalMove => "an illegal move",
        FlagKind::WrongCard => "a wrong card",
        FlagKind::WrongPlayer => "not that player's turn",
        FlagKind::KingRequired => "the king must be summoned",
        FlagKind::MissedSwap => "a missed swap",
        FlagKind::MissedFlip => "a missed flip",
        FlagKind::MissedEliminationFlip => "a mated player's cards are still face up",
        FlagKind::Unexplained => "the table matches no action",
        FlagKind::Unreadable => "a card cannot be read",
        FlagKind::MissingMove => "a card drawn and no move made",
        FlagKind::IncompleteAction => "an action is not finished",
        FlagKind::ImpossibleCard => "that card cannot be drawn",
        FlagKind::UncalledCheck => "a check was not called",
        FlagKind::IllegalRemoval => "a piece was taken off wrongly",
        FlagKind::MissingRemoval => "a piece must be taken off",
        FlagKind::ForcedKingMove => "only the king may move",
        FlagKind::DivinationMismatch => "the die named another piece",
    }
}

/// The mend a flag of `kind` always has, said when its message gives
/// none: an illegal action is mended by taking it back, whatever it was.
fn silent_mend(kind: FlagKind) -> Option<&'static str> {
    match kind {
        FlagKind::IllegalMove | FlagKind::WrongPlayer | FlagKind::ForcedKingMove => {
            Some("put it back")
        }
        FlagKind::IllegalPlacement => Some("take it back"),
        FlagKind::WrongCard
        | FlagKind::KingRequired
        | FlagKind::MissedSwap
        | FlagKind::MissedFlip
        | FlagKind::MissedEliminationFlip
        | FlagKind::Unexplained
        | FlagKind::Unreadable
        | FlagKind::MissingMove
        | FlagKind::IncompleteAction
        | FlagKind::ImpossibleCard
        | FlagKind::UncalledCheck
        | FlagKind::IllegalRemoval
        | FlagKind::MissingRemoval
        | FlagKind::DivinationMismatch => None,
    }
}

// ---------------------------------------------------------------------------
// The slips whose messages have a fixed shape: said from their parts.

/// En Prise's missed SWAP and FLIP and a mated player's cards left face
/// up, said from the parts of their messages (`enprise/judge.rs`,
/// `slip_flag`); `None` when the message is not of that shape.
fn shaped(f: &Flag) -> Option<String> {
    match f.kind {
        FlagKind::MissedFlip => missed_flip(&f.message).map(|(what, mend)| join(&[what, mend])),
        FlagKind::MissedSwap => missed_swap(&f.message).map(|(what, mend)| join(&[what, mend])),
        FlagKind::MissedEliminationFlip => elimination(&f.message),
        _ => None,
    }
}

/// "Missed FLIP: the white bishop took the black queen on (1,1); turn the
/// queen on (2,0) face-down": what happened, and the mend. The captured
/// card now lies face up on the capturing piece's old square.
fn missed_flip(message: &str) -> Option<(String, String)> {
    let rest = message.strip_prefix("Missed FLIP: the ")?;
    let (mover, rest) = rest.split_once(" took the ")?;
    let (taken, _) = rest.split_once(" on ")?;
    let (mover, taken) = (owned(mover)?, owned(taken)?);
    let (_, taken_piece) = taken.split_once(' ')?;
    let (_, mover_piece) = mover.split_once(' ')?;
    Some((
        format!("Missed flip: {mover} took {taken}"),
        format!("turn the {taken_piece}, now on the {mover_piece}'s old square, face down"),
    ))
}

/// "Missed SWAP: the white rook moved (0,0) to (2,0); put the face-down
/// card from (2,0) on (0,0), where it stood", or with a capture "the
/// black rook took the white rook on (2,0); put the captured rook
/// face-down on (3,0), where the rook stood".
fn missed_swap(message: &str) -> Option<(String, String)> {
    let rest = message.strip_prefix("Missed SWAP: the ")?;
    if let Some((mover, rest)) = rest.split_once(" took the ") {
        let (taken, _) = rest.split_once(" on ")?;
        let (mover, taken) = (owned(mover)?, owned(taken)?);
        let (_, taken_piece) = taken.split_once(' ')?;
        return Some((
            format!("Missed swap: {mover} took {taken}"),
            format!("put the captured {taken_piece} face down where {mover} stood"),
        ));
    }
    let (mover, _) = rest.split_once(" moved ")?;
    let mover = owned(mover)?;
    let (_, piece) = mover.split_once(' ')?;
    Some((
        format!("Missed swap: {mover} moved"),
        format!("put the face-down card it landed on where the {piece} stood"),
    ))
}

/// A mated player's cards still face up: "Black acted before Red's cards
/// were all turned face-down (Red is checkmated and out): turn those at
/// ... face-down, and Black's action stands", or "Red is checkmated and
/// out: turn Red's cards face-down at ...", either perhaps followed by
/// "And: " and a second flag's message.
fn elimination(message: &str) -> Option<String> {
    let (first, also) = match message.split_once(". And: ") {
        Some((first, also)) => (first, Some(also)),
        None => (message, None),
    };
    let at = first.find(" is checkmated and out")?;
    let whose = first[..at].rsplit(['(', ' ']).next()?.trim();
    if whose.is_empty() {
        return None;
    }
    let mut parts = vec![
        format!("{whose} is checkmated and out"),
        format!("turn all of {whose}'s cards face down"),
    ];
    if let Some((next, _)) = first.split_once(" acted before ") {
        parts.push(format!("{next}'s action stands"));
    }
    if also.is_some() {
        // A second mistake besides: too much to say; the screen has both.
        parts.push("there is a second mistake: look at the screen".to_string());
    }
    Some(join(&parts))
}

/// "white bishop" as players say it: "White's bishop".
fn owned(card: &str) -> Option<String> {
    let (colour, piece) = card.trim().split_once(' ')?;
    if colour.is_empty() || piece.is_empty() || piece.contains(' ') {
        return None;
    }
    Some(format!("{}'s {piece}", capitalise(colour)))
}

// ---------------------------------------------------------------------------
// A table that reads two ways.

/// A flag that gives the mends of several readings: each reading's mend,
/// under the player it belongs to, when they fit in a breath; otherwise
/// the players are sent to the screen. Never one reading's mend alone: it
/// could be the wrong card.
fn several_ways(f: &Flag) -> String {
    const FALLBACK: &str = "The table reads two ways: look at the screen.";
    // "The table reads two ways, as whose turn ... open. If White acted:
    // M1. Or, if Black acted: M2", or "... Read one way: M1. Or, read
    // another: M2".
    let Some((_, body)) = f.message.split_once(". ") else {
        return FALLBACK.to_string();
    };
    let mut parts = Vec::new();
    for part in body.split(". Or, ") {
        let Some((head, message)) = part.split_once(": ") else {
            return FALLBACK.to_string();
        };
        let head = head.trim();
        let lead = match head
            .strip_prefix("If ")
            .or_else(|| head.strip_prefix("if "))
            .and_then(|h| h.strip_suffix(" acted"))
        {
            Some(who) => format!("if {who} played"),
            None => "or".to_string(),
        };
        let one = Flag {
            kind: f.kind,
            cells: Vec::new(),
            rule: String::new(),
            message: message.to_string(),
            player: None,
            squares: Vec::new(),
        };
        let Some(mend) = mend_of(&one) else {
            return FALLBACK.to_string();
        };
        parts.push(format!("{lead}, {mend}"));
    }
    if parts.len() < 2 {
        return FALLBACK.to_string();
    }
    let said = join(&[vec!["The table reads two ways".to_string()], parts].concat());
    if words(&said) > MOST_WORDS {
        return FALLBACK.to_string();
    }
    said
}

/// A flag's mend alone, short: the first words of a reading's message
/// that tell the players what to do.
fn mend_of(f: &Flag) -> Option<String> {
    match f.kind {
        FlagKind::MissedFlip => {
            let rest = f.message.strip_prefix("Missed FLIP: the ")?;
            let (_, rest) = rest.split_once(" took the ")?;
            let (taken, _) = rest.split_once(" on ")?;
            return Some(format!("turn {} face down", owned(taken)?));
        }
        FlagKind::MissedSwap => return missed_swap(&f.message).map(|(_, mend)| mend),
        _ => {}
    }
    let clauses = clauses(&speakable(&f.message));
    clauses
        .iter()
        .rev()
        .find(|c| is_mend(c))
        .map(|c| lower_first(c))
        .filter(|c| words(c) <= AIM_WORDS / 2)
}

// ---------------------------------------------------------------------------
// Any other flag: from its message.

/// A flag said from its message: coordinates and asides out, the
/// explanation dropped when the whole is too long, the mend kept, the
/// player at fault named when the words kept do not name them.
fn plain(f: &Flag) -> String {
    let mut parts = clauses(&speakable(&f.message));
    // An illegal action's message may only say what is wrong: its mend
    // goes without saying on a screen, not aloud.
    if !parts.iter().skip(1).any(|c| is_mend(c))
        && let Some(m) = silent_mend(f.kind)
    {
        parts.push(m.to_string());
    }
    let player = f.player.as_deref().filter(|p| !p.is_empty());
    // Whom the words are for, unless they name them already.
    let prefix = |kept: &[String]| {
        player
            .filter(|p| !kept.iter().any(|c| names(c, p)))
            .map(title)
    };
    let kept = choose(&parts, |kept| {
        words_of(kept) + usize::from(prefix(kept).is_some())
    });
    let said = join(&kept);
    let said = match prefix(&kept) {
        Some(p) if !said.is_empty() => format!("{p}: {said}"),
        _ => said,
    };
    within_most(said)
}

/// A phrase cut to [`MOST_WORDS`] if one clause alone was longer, saying
/// that the screen has the rest.
fn within_most(said: String) -> String {
    if words(&said) <= MOST_WORDS {
        return said;
    }
    let rest = "The screen shows the rest.";
    let head: Vec<&str> = said
        .split_whitespace()
        .take(MOST_WORDS - words(rest))
        .collect();
    format!(
        "{}. {rest}",
        head.join(" ").trim_end_matches([',', ';', ':', '.'])
    )
}

/// Whether `clause` names the player `player` ("Black", "Black's").
fn names(clause: &str, player: &str) -> bool {
    clause.split_whitespace().any(|w| {
        let w = w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'');
        let w = w.strip_suffix("'s").unwrap_or(w);
        w.eq_ignore_ascii_case(player)
    })
}

fn words_of(parts: &[String]) -> usize {
    parts.iter().map(|c| words(c)).sum()
}

/// The clauses to say, `length` counting the words they would take:
/// all of them when they fit in [`AIM_WORDS`]; otherwise what is wrong
/// (the first clause that names a piece, a player or a square, else the
/// first) and how to mend it (the last clause that says what to do), with
/// what else fits; otherwise the mend alone, whole, up to [`MOST_WORDS`]:
/// a mend is never cut short without saying so, and a clause is cut only
/// where dropping its tail leaves it true (", and ...").
fn choose(parts: &[String], length: impl Fn(&[String]) -> usize) -> Vec<String> {
    if parts.is_empty() || length(parts) <= AIM_WORDS {
        return parts.to_vec();
    }
    // What went wrong here reads better than the rule in general, when it
    // is said briefly (a long one is the screen's detail).
    let lead_at = parts
        .iter()
        .position(|c| {
            is_specific(c) && is_complaint(c) && !is_mend(c) && words(c) <= AIM_WORDS / 2 + 2
        })
        .unwrap_or(0);
    let mend_at = (1..parts.len()).rev().find(|&i| is_mend(&parts[i]));
    let Some(mend_at) = mend_at.filter(|&m| m != lead_at) else {
        // Nothing to do but hear what is wrong: the lead, and what
        // follows while it fits.
        let mut kept = vec![shortened(&parts[lead_at])];
        for c in &parts[lead_at + 1..] {
            let more = [kept.clone(), vec![c.clone()]].concat();
            if length(&more) > AIM_WORDS {
                break;
            }
            kept = more;
        }
        return kept;
    };
    let (lead, mend) = (&parts[lead_at], &parts[mend_at]);
    // In the message's order.
    let ordered = |mut at: Vec<usize>| {
        at.sort_unstable();
        at.dedup();
        at.into_iter().map(|i| parts[i].clone()).collect::<Vec<_>>()
    };
    let mut at = vec![lead_at, mend_at];
    // A lead of a few words ("Yellow rolled 6", "Return Any Piece") is
    // only a heading: what it heads goes with it.
    if words(lead) < 5 && lead_at + 1 < mend_at {
        at.push(lead_at + 1);
    }
    if length(&ordered(at.clone())) <= MOST_WORDS {
        // What else fits within the aim, in order.
        for i in 0..parts.len() {
            if at.contains(&i) {
                continue;
            }
            let more = [at.clone(), vec![i]].concat();
            if length(&ordered(more.clone())) <= AIM_WORDS {
                at = more;
            }
        }
        return ordered(at);
    }
    let short = vec![shortened(lead), mend.clone()];
    if length(&short) <= MOST_WORDS {
        return short;
    }
    // "put it back on e7, or show the right card on e8": either mend
    // mends it, the first is said.
    if let Some((first, _)) = mend.split_once(", or ") {
        let short = vec![shortened(lead), first.to_string()];
        if length(&short) <= MOST_WORDS {
            return short;
        }
    }
    if length(std::slice::from_ref(mend)) <= MOST_WORDS {
        return vec![mend.clone()];
    }
    // The mend alone is too long: its first steps, whole, and the screen
    // for the rest.
    let rest = "the screen shows the rest";
    let mut kept = String::new();
    for step in mend.split(", ") {
        let more = if kept.is_empty() {
            step.to_string()
        } else {
            format!("{kept}, {step}")
        };
        if length(&[more.clone(), rest.to_string()]) > MOST_WORDS {
            break;
        }
        kept = more;
    }
    if kept.is_empty() {
        return vec!["look at the screen".to_string()];
    }
    vec![kept, rest.to_string()]
}

/// A long clause said shorter where that leaves it true: "A, and B" and
/// "A and is B" say A; "A, but B" says B (what is wrong comes after the
/// "but": "the pawn moved, but the owed step is not made").
fn shortened(clause: &str) -> String {
    if let Some((_, tail)) = clause.split_once(", but ")
        && words(tail) >= 3
    {
        return capitalise(tail);
    }
    for and in [", and ", " and "] {
        if let Some((head, _)) = clause.split_once(and)
            && words(head) >= 5
        {
            return head.to_string();
        }
    }
    clause.to_string()
}

/// Whether a clause names a piece's colour, a player or a square: what
/// happened here, rather than the rule in general.
fn is_specific(clause: &str) -> bool {
    // A clause that opened on a cell lost what it named.
    if clause.starts_with("That cell") || clause.starts_with("That step") {
        return false;
    }
    clause.split_whitespace().any(|w| {
        let w = w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'');
        let w = w.strip_suffix("'s").unwrap_or(w);
        ["White", "Black", "Red", "Blue", "Yellow"].contains(&w) || is_square(w)
    })
}

/// Whether a clause says that something may not be: "cannot", "not",
/// "never", "no".
fn is_complaint(clause: &str) -> bool {
    clause
        .split_whitespace()
        .any(|w| ["cannot", "not", "never", "no", "No"].contains(&w))
}

/// A chessboard square: "e4".
fn is_square(w: &str) -> bool {
    let b = w.as_bytes();
    b.len() == 2 && (b'a'..=b'h').contains(&b[0]) && (b'1'..=b'8').contains(&b[1])
}

/// Words that open a clause telling the players what to do.
const MEND_VERBS: [&str; 24] = [
    "put",
    "take",
    "turn",
    "swap",
    "replace",
    "roll",
    "check",
    "play",
    "set",
    "send",
    "show",
    "finish",
    "exchange",
    "move",
    "remove",
    "give",
    "look",
    "call",
    "decline",
    "straighten",
    "return",
    "summon",
    "add",
    "restore",
];

fn is_mend(clause: &str) -> bool {
    let first = clause
        .split_whitespace()
        .next()
        .unwrap_or("")
        .to_lowercase();
    // "White takes one of them off the table" (Twelve's owed send-back)
    // is a mend too, said of the player.
    MEND_VERBS.contains(&first.as_str()) || clause.to_lowercase().contains(" takes ")
}

// ---------------------------------------------------------------------------
// Text: from a message written for a screen to words for the ear.

/// Stands for a cell's coordinates while the words around them are
/// rearranged (a private-use character no message holds).
const CELL: char = '\u{E000}';

/// The message with its asides (parentheses: rule IDs, explanations)
/// dropped, its coordinates taken out with the words that only led to
/// them, rule IDs and screen notation turned to words.
fn speakable(message: &str) -> String {
    let text = asides(&ranges(message));
    let text = dashes(&text);
    let text = cells_out(&text);
    let text: Vec<String> = text.split_whitespace().filter_map(word).collect();
    tidy(&text.join(" "))
}

/// Ranges of columns or rows ("-1..2") are cells too: the words that led
/// to them go with them.
fn ranges(s: &str) -> String {
    s.split(' ')
        .map(|w| {
            let core = w.trim_end_matches([',', ';', ':', '.', ')']);
            if core.contains("..") && core.chars().any(|c| c.is_ascii_digit()) {
                format!("{CELL}{}", &w[core.len()..])
            } else {
                w.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Parenthesised asides dropped, nested ones too; coordinates such as
/// "(2,-1)" (or a knight's "(±1,±2)") become [`CELL`].
fn asides(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '(' => {
                let mut depth = 0usize;
                let mut j = i;
                let mut close = None;
                while j < chars.len() {
                    match chars[j] {
                        '(' => depth += 1,
                        ')' => {
                            depth -= 1;
                            if depth == 0 {
                                close = Some(j);
                                break;
                            }
                        }
                        _ => {}
                    }
                    j += 1;
                }
                match close {
                    Some(j) => {
                        let inner: String = chars[i + 1..j].iter().collect();
                        if is_coordinates(&inner) {
                            out.push(CELL);
                        } else {
                            // The space before an aside goes with it.
                            while out.ends_with(' ') {
                                out.pop();
                            }
                        }
                        i = j + 1;
                    }
                    // An unclosed parenthesis: the rest is an aside too.
                    None => break,
                }
            }
            ')' => i += 1,
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

fn is_coordinates(inner: &str) -> bool {
    inner.contains(',')
        && inner.chars().any(|c| c.is_ascii_digit())
        && inner
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '-' | '+' | '±' | ',' | ' '))
}

/// En dashes: "e7–e8" is "e7 to e8"; "Rook–King" is "Rook and King".
fn dashes(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let chars: Vec<char> = s.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if c == '–' || c == '—' {
            let before = i.checked_sub(1).map(|k| chars[k]);
            let after = chars.get(i + 1).copied();
            let squares = before.is_some_and(|b| b.is_ascii_digit())
                && after.is_some_and(|a| a.is_ascii_lowercase());
            out.push_str(if squares { " to " } else { " and " });
        } else {
            out.push(c);
        }
    }
    out
}

/// Takes the coordinates out with the words that led to them: lists
/// become one, "from A to B" and "at A" go, "those at A, B" are the
/// cards the screen shows, a clause that opens on a cell names "that
/// cell".
fn cells_out(s: &str) -> String {
    let c = CELL;
    let mut t = s.to_string();
    // Lists of cells are one cell.
    loop {
        let before = t.len();
        for sep in [", ", " and ", " or ", ","] {
            t = t.replace(&format!("{c}{sep}{c}"), &c.to_string());
        }
        if t.len() == before {
            break;
        }
    }
    // A clause that opens on a cell: "(1,2) is beside the Black King",
    // "(1,0) to (2,1) is not".
    for lead in ["", ": ", "; ", ". "] {
        for (from, to) in [
            (format!("{lead}{c} to {c} "), "that step "),
            (format!("{lead}{c} "), "that cell "),
        ] {
            if lead.is_empty() {
                if let Some(rest) = t.strip_prefix(&from) {
                    t = capitalise(&format!("{to}{rest}"));
                }
            } else {
                t = t.replace(&from, &format!("{lead}{to}"));
            }
        }
    }
    // Where the words around a cell need one to read on.
    for (from, to) in [
        (format!(" those at {c}"), " the pieces marked on the screen"),
        (format!(" blocks {c} to {c}"), " blocks the way"),
        (format!(" from {c} to {c}"), " there"),
        (format!(" stands at {c}"), " is on the table"),
        (format!(" placed at {c}"), " was placed"),
        (format!(" touches {c}"), " touches it"),
        (format!(" no card at {c}"), " no card there"),
        (format!(" off {c}"), " off"),
    ] {
        t = t.replace(&from, to);
    }
    for pattern in [format!(" {c} to {c}"), format!(" from {c}")] {
        t = t.replace(&pattern, "");
    }
    for prep in ["on", "at", "to", "onto", "into", "in", "of", "near"] {
        t = t.replace(&format!(" {prep} {c}"), "");
    }
    t.replace(c, "")
}

/// One word as said, or `None` for one that is no speech: rule IDs
/// ("EP-MOVE-KNIGHT", "DC-4.4"), ranges ("-1..2"), equations.
fn word(w: &str) -> Option<String> {
    let core = w.trim_matches(|c: char| !c.is_alphanumeric());
    if core.is_empty() {
        // Punctuation alone (a dash): keep it, tidy decides.
        return Some(w.to_string());
    }
    if is_rule_id(core) || core.contains("..") || w.contains('=') {
        return None;
    }
    // Screen emphasis ("Missed FLIP") is said as a word.
    let shouted = core.len() >= 3 && core.chars().all(|c| c.is_ascii_uppercase());
    let mut w = if shouted {
        w.to_lowercase()
    } else {
        w.to_string()
    };
    // "4x4" is "4 by 4".
    if let Some((a, b)) = core.split_once('x')
        && !a.is_empty()
        && !b.is_empty()
        && a.chars().all(|c| c.is_ascii_digit())
        && b.chars().all(|c| c.is_ascii_digit())
    {
        w = w.replacen(core, &format!("{a} by {b}"), 1);
    }
    // Option names ("side_rule_on_moves") are said as words.
    Some(w.replace('_', " "))
}

/// A rule ID: two or more capitals, a dash, then capitals, digits, dots
/// and dashes ("EP-MISSED-FLIP", "DC-6.6", "TW-10.2", "EN-CHK-3").
pub fn is_rule_id(w: &str) -> bool {
    let Some((head, tail)) = w.split_once('-') else {
        return false;
    };
    head.len() >= 2
        && head.chars().all(|c| c.is_ascii_uppercase())
        && !tail.is_empty()
        && tail
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '.' || c == '-')
}

/// Spaces and punctuation put right after words were taken out.
fn tidy(s: &str) -> String {
    let mut t = s.split_whitespace().collect::<Vec<_>>().join(" ");
    loop {
        let before = t.clone();
        for (from, to) in [
            (" ,", ","),
            (" :", ":"),
            (" ;", ";"),
            (" .", "."),
            (",,", ","),
            (", :", ":"),
            (", ;", ";"),
            (",:", ":"),
            (",;", ";"),
            (":;", ";"),
            (";:", ":"),
            (": :", ":"),
            ("; ;", ";"),
            ("::", ":"),
            (";;", ";"),
            ("..", "."),
            (",.", "."),
            (":.", "."),
            (";.", "."),
            ("  ", " "),
        ] {
            t = t.replace(from, to);
        }
        if t == before {
            break;
        }
    }
    t.trim_matches(|c: char| c.is_whitespace() || matches!(c, ',' | ':' | ';'))
        .to_string()
}

/// The clauses of a sentence: split at ": ", "; " and ". ".
fn clauses(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(i) = rest
        .find([':', ';', '.'])
        .filter(|&i| rest[i + 1..].starts_with(' ') || i + 1 == rest.len())
    {
        out.push(rest[..i].trim().to_string());
        rest = &rest[i + 1..];
    }
    // A separator not followed by a space (a square "e4." at the end was
    // taken above) leaves the rest whole.
    out.push(rest.trim().to_string());
    out.retain(|c| !c.is_empty());
    out
}

/// Clauses said as sentences: each starts with a capital and ends with a
/// full stop, so a voice pauses between them.
fn join(parts: &[String]) -> String {
    parts
        .iter()
        .map(|p| tidy(p))
        .filter(|p| !p.is_empty())
        .map(|p| {
            let p = capitalise(&p);
            if p.ends_with(['.', '!', '?']) {
                p
            } else {
                format!("{p}.")
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn capitalise(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

fn lower_first(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => c.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// How many words a phrase has.
pub fn words(s: &str) -> usize {
    s.split_whitespace().count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::Cell;

    fn flag(kind: FlagKind, player: Option<&str>, message: &str) -> Flag {
        Flag {
            kind,
            cells: vec![Cell::new(0, 0)],
            rule: "EP-TEST".into(),
            message: message.into(),
            player: player.map(Into::into),
            squares: vec![],
        }
    }

    fn say(kind: FlagKind, player: Option<&str>, message: &str) -> String {
        super::flag(&flag(kind, player, message))
    }

    #[test]
    fn a_missed_flip_names_the_pieces_and_the_old_square() {
        assert_eq!(
            say(
                FlagKind::MissedFlip,
                Some("black"),
                "Missed FLIP: the black bishop took the white rook on (1,0); turn the rook on (2,-1) face-down"
            ),
            "Missed flip: Black's bishop took White's rook. Turn the rook, now on the bishop's old square, face down."
        );
    }

    #[test]
    fn missed_swaps_with_and_without_a_capture() {
        assert_eq!(
            say(
                FlagKind::MissedSwap,
                Some("white"),
                "Missed SWAP: the white rook moved (0,0) to (2,0); put the face-down card from (2,0) on (0,0), where it stood"
            ),
            "Missed swap: White's rook moved. Put the face-down card it landed on where the rook stood."
        );
        assert_eq!(
            say(
                FlagKind::MissedSwap,
                Some("black"),
                "Missed SWAP: the black rook took the white rook on (2,0); put the captured rook face-down on (3,0), where the rook stood"
            ),
            "Missed swap: Black's rook took White's rook. Put the captured rook face down where Black's rook stood."
        );
    }

    #[test]
    fn coordinates_and_the_words_leading_to_them_go() {
        assert_eq!(
            say(
                FlagKind::IllegalPlacement,
                Some("black"),
                "The card at (-2,2) touches no other card: a new card must touch the board, side or corner"
            ),
            "Black: The card touches no other card. A new card must touch the board, side or corner. Take it back."
        );
        assert_eq!(
            say(
                FlagKind::IllegalMove,
                Some("white"),
                "No piece is placed on a side of the opposing King: (1,1) is beside the Black King at (0,1) (its corners are allowed); take the White Queen back"
            ),
            "No piece is placed on a side of the opposing King. Take the White Queen back."
        );
        assert_eq!(
            say(
                FlagKind::IllegalMove,
                Some("black"),
                "A bishop does not move like that ((3,1) to (2,1))"
            ),
            "Black: A bishop does not move like that. Put it back."
        );
    }

    #[test]
    fn rule_ids_go_and_a_long_message_keeps_what_is_wrong_and_the_mend() {
        let said = say(
            FlagKind::IllegalMove,
            Some("blue"),
            "Blue's queen cannot go from d4 to d5: a queen leaps exactly two squares, straight or diagonal, never one and never farther (EN-MOV-2): put it back on d4",
        );
        assert_eq!(
            said,
            "Blue's queen cannot go from d4 to d5. Put it back on d4."
        );
        let said = say(
            FlagKind::IllegalRemoval,
            Some("white"),
            "A piece leaves the board only by capture; removing one's own piece needs the free_self_removal option (DC-4.6): put it back on h2",
        );
        assert_eq!(
            said,
            "White: A piece leaves the board only by capture. Put it back on h2."
        );
    }

    #[test]
    fn a_table_that_reads_two_ways_says_both_mends_or_sends_to_the_screen() {
        let f = Flag {
            kind: FlagKind::MissedFlip,
            cells: vec![Cell::new(2, 0), Cell::new(1, 1)],
            rule: "EP-MISSED-FLIP".into(),
            message: "The table reads two ways, as whose turn it was is still open. If White acted: Missed FLIP: the white bishop took the black queen on (1,1); turn the queen on (2,0) face-down. Or, if Black acted: Missed FLIP: the black queen took the white bishop on (2,0); turn the bishop on (1,1) face-down".into(),
            player: None,
            squares: vec![],
        };
        assert_eq!(
            super::flag(&f),
            "The table reads two ways. If White played, turn Black's queen face down. If Black played, turn White's bishop face down."
        );
        let odd = Flag {
            message: "The table reads two ways. Something else entirely".into(),
            ..f
        };
        assert_eq!(
            super::flag(&odd),
            "The table reads two ways: look at the screen."
        );
    }

    #[test]
    fn the_other_events_said() {
        let said = |b: EventBody| event(&b);
        assert_eq!(
            said(EventBody::Check {
                player: "white".into(),
                attackers: vec![],
                squares: vec![]
            })
            .as_deref(),
            Some("Check to White.")
        );
        assert_eq!(
            said(EventBody::GameOver {
                result: GameResult::Win,
                winner: Some("air".into())
            })
            .as_deref(),
            Some("Game over: Air wins.")
        );
        assert_eq!(
            said(EventBody::GameOver {
                result: GameResult::Draw,
                winner: None
            })
            .as_deref(),
            Some("Game over: a draw.")
        );
        assert_eq!(
            said(EventBody::Cleared {
                kind: FlagKind::MissedFlip,
                how: How::Mended
            })
            .as_deref(),
            Some("Mended.")
        );
        assert_eq!(
            said(EventBody::Notice {
                kind: "pending".into(),
                message: "m".into(),
                cells: vec![]
            }),
            None
        );
    }

    #[test]
    fn nothing_unspeakable_survives_odd_messages() {
        for message in [
            "",
            "(",
            "((1,2)",
            "(1,2)",
            "at (1,2), (3,4) and (5,6)",
            "EP-MOVE-KNIGHT: (1,2) to (3,4)",
            "Something (nested (EN-X-1) aside) happened: put it back on (0,0)",
            "The area stays within 4x4: the columns are anchored at -1..2 (area = anchored); take it back",
            "a;b:c.d",
            "   ",
            ": ; .",
        ] {
            let said = say(FlagKind::Unexplained, None, message);
            assert!(!said.is_empty(), "{message:?}");
            assert!(!said.contains('('), "{message:?} -> {said}");
            assert!(!said.contains(CELL), "{message:?} -> {said}");
            assert!(
                !said
                    .split_whitespace()
                    .any(|w| is_rule_id(w.trim_matches(|c: char| !c.is_alphanumeric()))),
                "{message:?} -> {said}"
            );
            assert!(words(&said) <= MOST_WORDS, "{message:?} -> {said}");
        }
    }
}
