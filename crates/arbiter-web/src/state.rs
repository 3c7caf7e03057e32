//! What a spectator's page draws, as JSON: the table, whose turn it is,
//! the open flags with their cells and messages, a two-part action still
//! pending, checks, the last action, the log. Built from the referee after
//! each step, so the page needs no rules of its own.

use serde_json::{Value, json};

use arbiter_core::event::{Event, EventBody};
use arbiter_core::referee::AnyReferee;
use arbiter_core::shown::Shown;
use arbiter_core::table::Table;

/// How many of the latest log lines the state carries (the whole stream
/// is `/events`).
const LOG_LINES: usize = 40;

/// The game as the page draws it: the account every output shares
/// ([`arbiter_core::shown`]), drawn as JSON.
#[derive(Default)]
pub struct Tracker {
    shown: Shown,
}

impl Tracker {
    /// Takes one step's events (and the table seen, if the step was one).
    pub fn take(
        &mut self,
        step: usize,
        events: &[Event],
        seen: Option<&Table>,
        referee: &dyn AnyReferee,
    ) {
        match seen {
            Some(t) => self.shown.seen(step, t, referee.last_offset()),
            None => self.shown.at_step(step),
        }
        self.shown.take(events);
    }

    /// The game's start: its events, and no step judged yet.
    pub fn start(&mut self, events: &[Event]) {
        self.shown.take(events);
    }

    /// The input has ended: nothing more will come.
    pub fn input_ended(&mut self) {
        self.shown.ended();
    }

    /// The state now, as `/state.json` serves it.
    pub fn state(&self, referee: &dyn AnyReferee) -> Value {
        let panel = referee.panel();
        let shown = &self.shown;
        let table = shown
            .observed
            .clone()
            .unwrap_or_else(|| referee.expected_table().clone());
        let cells: Vec<Value> = table
            .iter()
            .map(|(c, t)| json!({ "cell": [c.col, c.row], "token": t.to_string() }))
            .collect();
        let flags: Vec<Value> = referee
            .open_flags()
            .iter()
            .map(|f| {
                json!({
                    "kind": f.kind.as_str(),
                    "rule": f.rule,
                    "cells": f.cells.iter().map(|c| [c.col, c.row]).collect::<Vec<_>>(),
                    "message": f.message,
                    "player": f.player,
                })
            })
            .collect();
        let players: Vec<Value> = panel
            .players
            .iter()
            .map(|p| {
                json!({
                    "colour": p.colour.name(),
                    "to_move": p.to_move,
                    "in_check": p.in_check,
                    "out": p.out,
                    "next": p.plan.first().map(|c| c.to_string()),
                    "left": p.plan.len(),
                })
            })
            .collect();
        let thrones: Vec<Value> = panel
            .armies
            .as_ref()
            .map(|a| {
                a.thrones
                    .iter()
                    .map(|(c, colour)| json!({ "cell": [c.col, c.row], "colour": colour.name() }))
                    .collect()
            })
            .unwrap_or_default();
        let armies: Vec<Value> = panel
            .armies
            .as_ref()
            .map(|a| {
                a.armies
                    .iter()
                    .map(|a| {
                        json!({
                            "colour": a.colour.name(),
                            "element": a.element,
                            "team": a.team,
                            "to_move": a.to_move,
                            "in_check": a.in_check,
                            "controller": a.controller,
                            "frozen": a.frozen,
                            "withdrawn": a.withdrawn,
                            "stalemated": a.stalemated,
                            "king_off": a.king_off,
                            "prisoners": a.prisoners.iter().map(|c| c.describe()).collect::<Vec<_>>(),
                            "notes": a.notes,
                        })
                    })
                    .collect()
            })
            .unwrap_or_default();
        let die = panel.armies.as_ref().and_then(|a| a.die.as_ref()).map(|d| {
            json!({
                "roll": d.roll,
                "needs": d.needs,
                "rerolls_used": d.rerolls_used,
                "rerolls_max": d.rerolls_max,
            })
        });
        let title = arbiter_core::setup::GameKind::parse(&shown.game)
            .map_or(shown.game.as_str(), |g| g.title());
        let checked = shown.checked().map(|(p, mate)| {
            if mate {
                format!("{p} (checkmate)")
            } else {
                p.to_string()
            }
        });
        let over = shown.game_over().map(|w| match w {
            Some(w) => format!("{w} wins"),
            None => "a draw".to_string(),
        });
        // As the view's log: the game's start is the title, not a line.
        let played: Vec<&Event> = shown
            .log
            .iter()
            .filter(|e| !matches!(e.body, EventBody::GameStarted { .. }))
            .collect();
        let log: Vec<String> = played
            .iter()
            .skip(played.len().saturating_sub(LOG_LINES))
            .map(|e| e.to_string())
            .collect();
        json!({
            "game": shown.game,
            "title": title,
            "mode": panel.armies.as_ref().map(|a| a.mode.clone()),
            "die": die,
            "input_ended": shown.input_ended,
            "players": shown.players,
            "step": shown.step,
            "steps": shown.steps,
            "chessboard": panel.chessboard,
            "area": panel.limit.map(|(a, b)| [[a.col, a.row], [b.col, b.row]]),
            "cells": cells,
            "flags": flags,
            "pending": panel.pending.as_ref().map(|p| json!({
                "message": p.message,
                "cells": p.cells.iter().map(|c| [c.col, c.row]).collect::<Vec<_>>(),
            })),
            "last_action": shown.last_action.iter().map(|c| [c.col, c.row]).collect::<Vec<_>>(),
            "check": {
                "player": checked,
                "attackers": shown.attackers().iter().map(|c| [c.col, c.row]).collect::<Vec<_>>(),
            },
            "turn": panel.players.iter().find(|p| p.to_move).map(|p| p.colour.name())
                .or_else(|| panel.armies.as_ref().and_then(|a| a.armies.iter().find(|a| a.to_move)).map(|a| a.colour.name())),
            "panel_players": players,
            "armies": armies,
            "thrones": thrones,
            "notes": panel.notes,
            "cards": panel.cards.as_ref().map(|c| json!({
                "drawn": c.drawn.as_ref().map(|(card, by)| json!({ "card": card, "by": by })),
                "next_draw": c.next_draw,
                "pending": c.pending,
                "pile": c.pile,
                "removal_right": c.removal_right,
            })),
            "over": over.is_some() || referee.is_over(),
            "result": over.or(panel.result),
            "log": log,
        })
    }
}
