//! Writes the bundled demo game, `fixtures/scenarios/enprise/demo.toml`: a
//! random two-player game that ends in checkmate, with the mistakes
//! beginners make (a missed SWAP, a missed FLIP, a card out of order) shown
//! and mended, and the camera nudged once. Run:
//! `cargo run --example make_demo > fixtures/scenarios/enprise/demo.toml`

use arbiter::event::{Event, EventBody};
use arbiter::games::enprise::Action;
use arbiter::script::step_toml;
use arbiter::table::{Card, Cell, Piece, Table, Token};
use arbiter_testkit::games::enprise::random::random_game;

const SEED: u64 = 1597;

fn expect(events: &[EventBody]) -> String {
    let items: Vec<String> = events
        .iter()
        .map(|e| {
            let v = Event {
                step: 0,
                body: e.clone(),
            }
            .to_json();
            let fields: Vec<String> = v
                .as_object()
                .unwrap()
                .iter()
                .filter(|(k, _)| !matches!(k.as_str(), "step" | "message"))
                .map(|(k, v)| format!("{k} = {}", toml_value(v)))
                .collect();
            format!("{{ {} }}", fields.join(", "))
        })
        .collect();
    format!("expect = [\n  {},\n]\n", items.join(",\n  "))
}

fn toml_value(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Array(a) => format!(
            "[{}]",
            a.iter().map(toml_value).collect::<Vec<_>>().join(", ")
        ),
        other => other.to_string(),
    }
}

fn flag(kind: &str, cell: Cell, rule: &str) -> String {
    format!(
        "expect = [{{ event = \"flag\", kind = \"{kind}\", cells = [[{}, {}]], rule = \"{rule}\" }}]\n",
        cell.col, cell.row
    )
}

fn main() {
    let game = random_game(SEED, 2, 200);
    let mut out = String::from(
        "# The bundled demo: a whole En Prise game between two beginners, from the\n\
         # first card to checkmate. They forget a SWAP, forget a FLIP, place a card\n\
         # out of order, and the camera is nudged once; each slip is flagged and\n\
         # mended. Made by `cargo run --example make_demo` (seed 1597).\n",
    );
    out += &game.setup().to_toml();
    let (mut swap_done, mut flip_done, mut order_done) = (false, false, false);
    for (i, t) in game.turns.iter().enumerate() {
        let before = t.before.table();
        let mut pre: Option<(Table, String, String)> = None;
        match t.action {
            Action::Move {
                card,
                from,
                to,
                captured: None,
                ..
            } if !swap_done => {
                swap_done = true;
                let mut w = before.clone();
                w.set(from, None);
                w.set(to, Some(Token::Up(card)));
                pre = Some((
                    w,
                    flag("missed_swap", from, "EP-MISSED-SWAP"),
                    "the SWAP is forgotten".into(),
                ));
            }
            Action::Move {
                card,
                from,
                to,
                captured: Some(c),
                ..
            } if !flip_done => {
                flip_done = true;
                let mut w = before.clone();
                w.set(from, Some(Token::Up(c)));
                w.set(to, Some(Token::Up(card)));
                pre = Some((
                    w,
                    flag("missed_flip", from, "EP-MISSED-FLIP"),
                    "the FLIP is forgotten".into(),
                ));
            }
            Action::Place {
                card,
                to,
                down: false,
                ..
            } if !order_done && i > 6 => {
                order_done = true;
                let other = if card.piece == Piece::Pawn {
                    Piece::Knight
                } else {
                    Piece::Pawn
                };
                let mut w = before.clone();
                w.set(to, Some(Token::Up(Card::new(card.colour, other))));
                pre = Some((
                    w,
                    flag("wrong_card", to, "EP-PLACE-ORDER"),
                    "a card out of Battleplan order".into(),
                ));
            }
            _ => {}
        }
        let mut events = t.events.clone();
        if let Some((wrong, exp, why)) = pre {
            out += &format!("\n# {why}\n");
            out += &step_toml(&wrong);
            out += &exp;
            events.insert(
                0,
                EventBody::Cleared {
                    kind: arbiter::event::FlagKind::Unexplained,
                    how: arbiter::event::How::Mended,
                },
            );
            out += "\n# mended\n";
            let mut s = step_toml(&t.table);
            s += &expect(&events[1..]).replacen(
                "expect = [\n",
                "expect = [\n  { event = \"cleared\", how = \"mended\" },\n",
                1,
            );
            out += &s;
        } else {
            out += "\n";
            let table = if i == 12 {
                out += "# the camera is nudged: the whole table shifts, the placement is still read where it lies on the board\n";
                t.table.shifted(Cell::new(2, 1))
            } else {
                t.table.clone()
            };
            out += &step_toml(&table);
            out += &expect(&events);
        }
    }
    print!("{out}");
}
