//! Drawing the app: a function of its state.

use crate::event::ActionKind;
use crate::setup::GameKind;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};

use super::board::{BoardView, Marks, card_style};
use super::chessboard::{ChessboardView, chip_style};
use super::{App, Banner, Health, Source};
use crate::event::{EventBody, FlagKind};
use crate::games::{ArmiesPanel, Panel};
use crate::observation::Observation;
use crate::table::{Cell, Colour, Piece, Table, Token};

pub fn draw(app: &App, frame: &mut Frame) {
    let area = frame.area();
    let [main, status] = Layout::vertical([Constraint::Min(3), Constraint::Length(1)]).areas(area);
    let side_w = if area.width >= 140 { 56 } else { 40 }.min(area.width / 2);
    let [left, right] =
        Layout::horizontal([Constraint::Min(20), Constraint::Length(side_w)]).areas(main);

    let panel = app.session.referee().panel();
    draw_board(app, &panel, frame, left);
    let mut game_lines = match &panel.armies {
        Some(armies) => {
            let table = board_table(app);
            // The flags and three rows of log keep their room.
            let budget = (right.height / 2).max(right.height.saturating_sub(8)).min(
                right
                    .height
                    .saturating_sub(flags_height(app, right.width) + 3),
            );
            let full = army_lines(&panel, armies, &table, app.networks, true);
            // Short of rows: the counts and the options echoed go first.
            if wrapped_height(&full, right.width) <= budget {
                full
            } else {
                army_lines(&panel, armies, &table, app.networks, false)
            }
        }
        None if panel.chessboard => game_lines(app, &panel),
        None => player_lines(&panel, right.width),
    };
    let game_title = match &panel.armies {
        Some(a) => format!(" Armies · {} ", a.mode),
        None if panel.chessboard => " Game ".to_string(),
        None => " Players ".to_string(),
    };
    let room = right.height / 2;
    if wrapped_height(&game_lines, right.width) > room {
        // Short of rows: the blank lines between groups go first.
        game_lines.retain(|l| l.width() > 0);
    }
    let players_h =
        wrapped_height(&game_lines, right.width).min(room.max(right.height.saturating_sub(8)));
    let flags_h = flags_height(app, right.width);
    let [players, flags, log] = Layout::vertical([
        Constraint::Length(players_h),
        Constraint::Length(flags_h),
        Constraint::Min(3),
    ])
    .areas(right);
    frame.render_widget(
        Paragraph::new(game_lines)
            .wrap(Wrap { trim: false })
            .block(Block::bordered().title(game_title)),
        players,
    );
    draw_flags(app, frame, flags);
    draw_log(app, frame, log);
    draw_status(app, &panel, frame, status);
    if let Some(c) = &app.chooser {
        let lines = c.lines();
        let w = lines
            .iter()
            .map(Line::width)
            .chain([c.title().chars().count() + 2])
            .max()
            .unwrap_or(0) as u16
            + 2;
        let r = popup(area, w, lines.len() as u16 + 2);
        frame.render_widget(Clear, r);
        frame.render_widget(
            Paragraph::new(lines).block(Block::bordered().title(c.title())),
            r,
        );
    }
    if app.help {
        draw_help(app, &panel, frame, area);
    }
    if app.confirm_quit {
        draw_confirm(frame, area);
    }
}

fn colour_style(c: Colour) -> Style {
    match c {
        Colour::White => Style::new().fg(Color::White),
        Colour::Black => Style::new().fg(Color::Gray),
        Colour::Red => Style::new().fg(Color::LightRed),
        Colour::Blue => Style::new().fg(Color::LightBlue),
        Colour::Yellow => Style::new().fg(Color::Yellow),
    }
    .add_modifier(Modifier::BOLD)
}

fn draw_board(app: &App, panel: &Panel, frame: &mut Frame, area: Rect) {
    // Four armies play as two teams: the teams face each other.
    let players = if panel.armies.is_some() {
        "Air vs Earth".to_string()
    } else {
        app.players.join(" vs ")
    };
    let mut title = format!(" arbiter · {} · {players} ", game_title(&app.game));
    if title.chars().count() + 2 > area.width as usize {
        // A narrow board keeps what tells the game apart.
        title = format!(" {} · {players} ", game_title(&app.game));
    }
    let block = Block::bordered().title(title.bold());
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let flagged: Vec<_> = app
        .open_flags()
        .iter()
        .flat_map(|f| f.cells.iter().copied())
        .collect();
    let attackers: Vec<_> = app
        .shown
        .game
        .banners
        .iter()
        .flat_map(|b| match b {
            Banner::Check { attackers, .. } | Banner::Checkmate { attackers, .. } => {
                attackers.clone()
            }
            _ => vec![],
        })
        .collect();
    let table = app
        .shown
        .game
        .observed
        .as_ref()
        .unwrap_or(app.session.referee().expected_table());
    let (cursor, marked) = match &app.source {
        Source::Mock(m) => (Some(m.cursor()), m.marked()),
        Source::Script(_) | Source::Live(_) => (None, None),
    };
    let marks = |table, marked| Marks {
        table,
        flagged: &flagged,
        last_action: &app.shown.game.last_action,
        attackers: &attackers,
        cursor,
        marked,
    };
    if panel.chessboard {
        // The mock's board as it is now, a piece in hand included (gone
        // from its square, which is marked): the referee sees it only once
        // the hand is free.
        let live;
        let (table, marked) = match &app.source {
            Source::Mock(m) => {
                live = m.table();
                (&live, marked.or(m.held().map(|(_, from)| from)))
            }
            _ => (table, marked),
        };
        let (thrones, frozen) = match &panel.armies {
            Some(a) => (a.thrones.as_slice(), a.frozen_cells.as_slice()),
            None => (&[][..], &[][..]),
        };
        frame.render_widget(
            ChessboardView {
                marks: marks(table, marked),
                thrones,
                frozen,
                networks: app.networks && panel.armies.is_some(),
            },
            inner,
        );
        return;
    }
    // What is still to do, where the table does not show it done yet (a
    // mated army's card already turned is no longer marked).
    let pending: Vec<Cell> = panel.pending.as_ref().map_or_else(Vec::new, |p| {
        p.cells
            .iter()
            .copied()
            .filter(|&c| table.get(c) != Some(Token::Down))
            .collect()
    });
    frame.render_widget(
        BoardView {
            marks: marks(table, marked),
            limit: panel.limit,
            take_off: &panel.take_off,
            pending: &pending,
        },
        inner,
    );
}

/// The game's name as the title bar shows it (the registry's title;
/// Enochian in full, as its players call it).
fn game_title(name: &str) -> &str {
    match GameKind::parse(name) {
        Some(GameKind::Enochian) => "Enochian Chess",
        Some(game) => game.title(),
        None => name,
    }
}

/// The table the board shows: the mock's as it is now, else the last
/// one seen, else the one the game expects.
fn board_table(app: &App) -> Table {
    match &app.source {
        Source::Mock(m) if app.chessboard => m.table(),
        _ => app
            .shown
            .game
            .observed
            .clone()
            .unwrap_or_else(|| app.session.referee().expected_table().clone()),
    }
}

/// The panel of a game of four armies (Enochian Chess): who moves and
/// the game's notes, each army in turn order (element, team, who moves it,
/// what holds it back, the kings it holds), the die, and on request the
/// networks of the queens and bishops on `table`. Without `details`, the
/// armies' own notes (counts of pieces) and the options are left out.
pub(super) fn army_lines(
    panel: &Panel,
    armies: &ArmiesPanel,
    table: &Table,
    networks: bool,
    details: bool,
) -> Vec<Line<'static>> {
    let mut lines: Vec<Line> = Vec::new();
    if let Some(r) = &panel.result {
        lines.push(Line::styled(
            format!(" Result: {r}"),
            Style::new().fg(Color::Black).bg(Color::Green).bold(),
        ));
    }
    // The game's notes first (who moves, a roll awaited, a card swap
    // owed, an exchange proposed); the options echoed last, as the title
    // and the die already show them.
    let (options, notes): (Vec<&String>, Vec<&String>) =
        panel.notes.iter().partition(|n| n.starts_with("Options:"));
    for (i, n) in notes.into_iter().enumerate() {
        let line = Line::from(format!(" {n}"));
        lines.push(if i == 0 { line.bold() } else { line });
    }
    lines.push(Line::from(""));
    lines.push(Line::from("   Army    Element Team  Moved by").dim());
    for a in &armies.armies {
        // Its own player, or in a two-player game its team's.
        let own = a.controller == a.colour.name() || a.controller.eq_ignore_ascii_case(&a.team);
        let mut row = vec![
            Span::raw(if a.to_move { " ▶ " } else { "   " }).bold(),
            Span::styled(format!("{:<6}", a.colour.title()), chip_style(a.colour)),
            Span::raw(format!("  {:<7} {:<5} ", a.element, a.team)),
            if own {
                Span::raw(a.controller.clone())
            } else {
                // Moved by another's hand (seized, annexed, two players):
                // it stands out.
                Span::raw(a.controller.clone()).bold().reversed()
            },
        ];
        if a.to_move {
            row[2] = row[2].clone().bold();
        }
        lines.push(Line::from(row));
        let mut facts: Vec<Span> = Vec::new();
        let chip = |text: &str, bg: Color| {
            Span::styled(
                format!(" {text} "),
                Style::new().fg(Color::Black).bg(bg).bold(),
            )
        };
        if a.in_check {
            facts.push(chip("IN CHECK", Color::Yellow));
        }
        if a.frozen {
            facts.push(chip("FROZEN", Color::Indexed(248)));
        }
        if a.stalemated {
            facts.push(chip("STALEMATED", Color::Indexed(180)));
        }
        if a.withdrawn {
            facts.push(Span::raw("withdrawn").italic());
        }
        if a.king_off && !a.frozen {
            facts.push(Span::raw("king off the board").italic());
        }
        if !a.prisoners.is_empty() {
            let kings: Vec<String> = a.prisoners.iter().map(|c| c.to_string()).collect();
            facts.push(Span::raw(format!("holds {}", kings.join(" "))));
        }
        if details {
            facts.extend(a.notes.iter().map(|n| Span::raw(n.clone()).dim()));
        }
        if !facts.is_empty() {
            let mut second = vec![Span::raw("     ")];
            for (k, f) in facts.into_iter().enumerate() {
                if k > 0 {
                    second.push(Span::raw(" · ").dim());
                }
                second.push(f);
            }
            lines.push(Line::from(second));
        }
    }
    if let Some(die) = &armies.die {
        lines.push(Line::from(""));
        let mut row = vec![Span::raw(" Die  ").bold()];
        match die.roll {
            Some(n) => {
                row.push(Span::styled(
                    format!(" {n} "),
                    Style::new().fg(Color::Black).bg(Color::White).bold(),
                ));
                if let Some(needs) = &die.needs {
                    row.push(Span::raw(format!(" {needs}")));
                }
            }
            None => row.push(Span::raw("not rolled yet").italic()),
        }
        row.push(
            Span::raw(format!(
                " · re-rolls {}/{}",
                die.rerolls_used, die.rerolls_max
            ))
            .dim(),
        );
        lines.push(Line::from(row));
    }
    if networks {
        lines.push(Line::from(""));
        lines.extend(network_lines(table));
    }
    if details && !options.is_empty() {
        lines.push(Line::from(""));
        lines.extend(
            options
                .into_iter()
                .map(|o| Line::from(format!(" {o}")).dim()),
        );
    }
    lines
}

/// Each queen and bishop on the table by network (EN-NET): Aries the
/// light squares, Cancer the dark ones; army by army in turn order.
fn network_lines(table: &Table) -> Vec<Line<'static>> {
    const ORDER: [Colour; 4] = [Colour::Blue, Colour::Red, Colour::Black, Colour::Yellow];
    let mut pieces: Vec<(bool, usize, Piece, String)> = Vec::new();
    for (cell, token) in table.iter() {
        for card in token.cards() {
            if !matches!(card.piece, Piece::Queen | Piece::Bishop) {
                continue;
            }
            // a8 (col 0, row 0) is light: Aries.
            let cancer = (cell.col + cell.row) % 2 == 1;
            let army = ORDER.iter().position(|&c| c == card.colour).unwrap_or(4);
            let name = format!("{card} {}", cell.square().unwrap_or_default());
            pieces.push((cancer, army, card.piece, name));
        }
    }
    pieces.sort();
    let list = |cancer: bool| {
        let names: Vec<&str> = pieces
            .iter()
            .filter(|p| p.0 == cancer)
            .map(|p| p.3.as_str())
            .collect();
        if names.is_empty() {
            "none".to_string()
        } else {
            names.join(" ")
        }
    };
    vec![
        Line::from(" Networks: Aries light, Cancer dark").italic(),
        Line::from(vec![Span::raw(" Aries  ").bold(), Span::raw(list(false))]),
        Line::from(vec![Span::raw(" Cancer ").bold(), Span::raw(list(true))]),
    ]
}

/// The rows a paragraph of `lines` takes in a bordered box `width` wide.
fn wrapped_height(lines: &[Line], width: u16) -> u16 {
    let inner = width.saturating_sub(2).max(1) as usize;
    let rows: usize = lines.iter().map(|l| line_rows(l, inner)).sum();
    rows as u16 + 2
}

/// The rows one line takes wrapped in `inner` columns. Wrapped at words, a
/// word that does not fit starts a row, so counting characters can fall
/// short (the end of a flag's message was cut); the larger count is kept.
fn line_rows(line: &Line, inner: usize) -> usize {
    let by_chars = line.width().div_ceil(inner).max(1);
    if line.width() <= inner {
        return by_chars;
    }
    let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
    wrap_words(text.trim(), inner).len().max(by_chars)
}

/// The panel of a game on a chessboard played with cards (DoubleCross):
/// the drawn card first, the piles, each player's colour, discards and
/// held card, then the removal right, the removed pieces and the result.
fn game_lines(app: &App, panel: &Panel) -> Vec<Line<'static>> {
    let mut lines: Vec<Line> = Vec::new();
    // The result first: once the game is over nothing else matters as much.
    if let Some(r) = &panel.result {
        lines.push(Line::styled(
            format!(" Result: {r}"),
            Style::new().fg(Color::Black).bg(Color::Green).bold(),
        ));
    }
    let label = |s: &str| Span::raw(format!(" {s:<7} ")).dim();
    let mut rest: Vec<Line> = Vec::new();
    let cards = panel.cards.clone().unwrap_or_default();
    if let Some((card, who)) = &cards.drawn {
        let style = match cards.drawn_colour {
            Some(c) => card_style(c),
            // A Joust card.
            None => card_style(Colour::Blue),
        };
        lines.push(Line::from(vec![
            Span::raw(" Drawn   ").bold(),
            Span::styled(format!(" {card} "), style),
            Span::raw(format!("  {who} to act")).italic(),
        ]));
    } else if let Some(who) = &cards.next_draw {
        let mut line = vec![
            Span::raw(" Next    ").bold(),
            Span::raw(if cards.draws_again {
                format!("{who} draws again")
            } else {
                format!("{who} to draw")
            })
            .bold(),
        ];
        if cards.draws_again {
            line.push(Span::raw(" (Save King kept)").dim());
        }
        lines.push(Line::from(line));
    }
    if let Some(p) = &cards.pending {
        lines.push(Line::styled(
            format!(" {p}"),
            Style::new().fg(Color::Black).bg(Color::LightBlue).bold(),
        ));
    }
    if cards.drawn.is_none() {
        // The card already resolved (one that could not move, a Joust
        // card, a move made) stays in view until the next draw.
        if let Some(last) = last_draw(app) {
            lines.push(Line::from(vec![label("Last"), Span::raw(last)]));
        }
    }
    lines.push(Line::from(vec![
        label("Pile"),
        Span::raw(format!(
            "{} cards · deck {} in use",
            cards.pile, cards.decks_used
        )),
    ]));
    if let Some(r) = &cards.removal_right {
        rest.push(Line::from(vec![
            Span::styled(
                " Removal right ",
                Style::new().fg(Color::Black).bg(Color::Yellow).bold(),
            ),
            Span::raw(format!(" {r}")),
        ]));
    }
    if !cards.removed.is_empty() {
        let list: Vec<String> = cards.removed.iter().map(|c| c.to_string()).collect();
        rest.push(Line::from(vec![
            label("Removed"),
            Span::raw(counted(&list.join(" "))),
        ]));
    }
    for n in &panel.notes {
        rest.push(Line::from(format!(" {n}")));
    }
    lines.push(Line::from(""));
    for (i, p) in panel.players.iter().enumerate() {
        let name = app
            .players
            .get(i)
            .map(|n| format!("{} player", super::title(n)))
            .unwrap_or_else(|| p.colour.title().to_string());
        let mut head = vec![
            Span::raw(if p.to_move { "▶ " } else { "  " }),
            Span::raw(name).bold(),
        ];
        let mut facts = Vec::new();
        for n in &p.notes {
            if let Some(side) = n.strip_prefix("plays ") {
                // After Switch Sides a player plays the other colour: the
                // colour he moves now stands out.
                let switched = app.players.get(i).is_some_and(|me| me != side);
                head.push(Span::raw(" · plays "));
                let style = colour_style(p.colour);
                head.push(Span::styled(
                    if switched {
                        side.to_uppercase()
                    } else {
                        side.to_string()
                    },
                    if switched { style.reversed() } else { style },
                ));
            } else if n == "holds Save King" {
                facts.push(Span::styled(
                    "holds Save King",
                    Style::new().fg(Color::Black).bg(Color::LightBlue).bold(),
                ));
            } else {
                facts.push(Span::raw(n.clone()));
            }
        }
        if p.in_check {
            head.push(Span::raw("  "));
            head.push(Span::styled(
                "IN CHECK",
                Style::new().fg(Color::Black).bg(Color::Yellow).bold(),
            ));
        }
        if p.out {
            head.push(Span::raw("  out").dim());
        }
        lines.push(Line::from(head));
        let mut second = vec![Span::raw("    ")];
        for (k, f) in facts.into_iter().enumerate() {
            if k > 0 {
                second.push(Span::raw(" · "));
            }
            second.push(f);
        }
        lines.push(Line::from(second));
    }
    if !rest.is_empty() {
        lines.push(Line::from(""));
        lines.extend(rest);
    }
    lines
}

/// The last card drawn and by whom ("wR, drawn by white").
fn last_draw(app: &App) -> Option<String> {
    app.shown.game.log.iter().rev().find_map(|e| match &e.body {
        EventBody::Action(a) if a.action == ActionKind::Draw => {
            let card = match (a.card, &a.joust) {
                (Some(c), _) => c.to_string(),
                (None, Some(j)) => format!("joust:{j}"),
                (None, None) => return None,
            };
            Some(format!("{card}, drawn by {}", a.player))
        }
        _ => None,
    })
}

/// A list of tokens with repeats counted: "bP bP bP wN" → "bP×3 wN".
fn counted(list: &str) -> String {
    let mut out: Vec<(String, usize)> = Vec::new();
    for t in list.split_whitespace() {
        match out.iter_mut().find(|(k, _)| k == t) {
            Some((_, n)) => *n += 1,
            None => out.push((t.to_string(), 1)),
        }
    }
    out.into_iter()
        .map(|(t, n)| if n > 1 { format!("{t}×{n}") } else { t })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The players panel of the games without a chessboard: each player's
/// name, Battleplan or supply, and notes (wrapped, so that an instruction
/// such as taking a Queen off is never cut), then the game's notes.
fn player_lines(panel: &Panel, width: u16) -> Vec<Line<'static>> {
    let mut lines: Vec<Line> = Vec::new();
    for p in &panel.players {
        let marker = if p.to_move { "▶ " } else { "  " };
        let mut head = vec![
            Span::raw(marker),
            Span::styled(title_of(p.colour), colour_style(p.colour)),
        ];
        if p.to_move {
            head.push(Span::raw("  to act").italic());
        }
        if p.in_check {
            head.push(Span::styled(
                "  IN CHECK",
                Style::new().fg(Color::Black).bg(Color::Yellow).bold(),
            ));
        }
        if p.out {
            head.push(Span::raw("  out").dim());
        }
        lines.push(Line::from(head));
        // The Battleplan: the next card stands out, the rest follow.
        let mut plan = vec![Span::raw("    ")];
        match p.plan.split_first() {
            Some((next, rest)) => {
                plan.push(Span::styled(
                    format!("[{next}]"),
                    Style::new().reversed().bold(),
                ));
                let letters: Vec<String> =
                    rest.iter().map(|c| c.piece.letter().to_string()).collect();
                let count = format!("  {} left", p.plan.len());
                // Spaced letters when they fit, packed in fives when not.
                let room = width.saturating_sub(2 + 4 + 5) as usize;
                let spaced = format!(" {}", letters.join(" "));
                let text = if spaced.len() + count.len() <= room {
                    spaced
                } else {
                    let packed: Vec<String> = letters.chunks(5).map(|c| c.concat()).collect();
                    format!(" {}", packed.join(" "))
                };
                plan.push(Span::raw(text));
                plan.push(Span::raw(count).dim());
            }
            None => plan.push(Span::raw("Battleplan empty: moves only").dim()),
        }
        lines.push(Line::from(plan));
        // One note a line, wrapped under its own indent.
        let inner = width.saturating_sub(2 + 4) as usize;
        for n in &p.notes {
            for row in wrap_words(n, inner) {
                lines.push(Line::from(format!("    {row}")).dim());
            }
        }
    }
    for n in &panel.notes {
        lines.push(Line::from(format!("  {n}")));
    }
    lines
}

fn title_of(c: Colour) -> &'static str {
    c.title()
}

/// What the flags panel says, as lines to wrap.
fn flag_lines(app: &App) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    for b in &app.shown.game.banners {
        let (text, style) = match b {
            Banner::Check { player, attackers } => (
                format!(
                    "CHECK: {}'s king is attacked from {}",
                    super::title(player),
                    attackers
                        .iter()
                        .map(|&c| app.cell_name(c))
                        .collect::<Vec<_>>()
                        .join(" ")
                ),
                Style::new().fg(Color::Black).bg(Color::Yellow).bold(),
            ),
            Banner::Checkmate { player, .. } => (
                format!("CHECKMATE: {}", super::title(player)),
                Style::new().fg(Color::White).bg(Color::Red).bold(),
            ),
            Banner::GameOver { winner } => (
                match winner {
                    Some(w) => format!("Game over: {} wins", super::title(w)),
                    None => "Game over: a draw".to_string(),
                },
                Style::new().fg(Color::Black).bg(Color::Green).bold(),
            ),
        };
        lines.push(Line::styled(text, style));
    }
    for f in app.open_flags() {
        lines.push(Line::from(vec![
            Span::styled(
                format!("! {}", flag_title(f.kind)),
                Style::new().fg(Color::White).bg(Color::Red).bold(),
            ),
            Span::raw(format!("  {}", f.rule)).dim(),
        ]));
        lines.push(Line::from(f.message.clone()));
    }
    // The second part of an action still to do: a prompt, not an alarm.
    let pending = app.session.referee().panel().pending;
    if let Some(p) = &pending
        && app.open_flags().is_empty()
    {
        lines.push(Line::from(vec![
            Span::styled(
                "~ To finish",
                Style::new().fg(Color::Black).bg(Color::Cyan).bold(),
            ),
            Span::raw(format!("  {}", p.message)),
        ]));
    }
    if app.open_flags().is_empty() && app.shown.game.banners.is_empty() && pending.is_none() {
        lines.push(Line::styled(
            "The table matches the game.",
            Style::new().fg(Color::Green),
        ));
    }
    lines
}

fn flags_height(app: &App, width: u16) -> u16 {
    let inner = width.saturating_sub(2).max(1) as usize;
    let rows: usize = flag_lines(app).iter().map(|l| line_rows(l, inner)).sum();
    (rows as u16 + 2).clamp(3, 14)
}

fn flag_title(kind: FlagKind) -> &'static str {
    match kind {
        FlagKind::MissedSwap => "Missed SWAP",
        FlagKind::MissedFlip => "Missed FLIP",
        FlagKind::MissedEliminationFlip => "Cards to turn face-down",
        FlagKind::IllegalPlacement => "Illegal placement",
        FlagKind::IllegalMove => "Illegal move",
        FlagKind::WrongCard => "Wrong card",
        FlagKind::WrongPlayer => "Not your turn",
        FlagKind::KingRequired => "King required",
        FlagKind::Unexplained => "Unexplained change",
        FlagKind::Unreadable => "Cannot read the table",
        FlagKind::MissingMove => "Missing move",
        FlagKind::IncompleteAction => "Incomplete action",
        FlagKind::ImpossibleCard => "Impossible card",
        FlagKind::UncalledCheck => "Uncalled check",
        FlagKind::IllegalRemoval => "Illegal removal",
        FlagKind::MissingRemoval => "Missing removal",
        FlagKind::ForcedKingMove => "The king must move",
        FlagKind::DivinationMismatch => "Not the piece the die named",
    }
}

fn draw_flags(app: &App, frame: &mut Frame, area: Rect) {
    let title = if app.open_flags().is_empty() {
        " Flags "
    } else {
        " Flags: mend the table "
    };
    frame.render_widget(
        Paragraph::new(flag_lines(app))
            .wrap(Wrap { trim: true })
            .block(Block::bordered().title(title)),
        area,
    );
}

fn draw_log(app: &App, frame: &mut Frame, area: Rect) {
    let rows_room = area.height.saturating_sub(2) as usize;
    let inner = area.width.saturating_sub(2).max(1) as usize;
    // Every event is shown whole: lines that run long (a flag's rule and
    // cells, a chessboard's squares and SAN, a notice) wrap, and the newest
    // that fit are shown. A flag's words stay readable after it clears.
    let mut used = 0;
    let mut lines: Vec<Line> = Vec::new();
    for e in app
        .shown
        .game
        .log
        .iter()
        .filter(|e| !matches!(e.body, EventBody::GameStarted { .. }))
        .rev()
    {
        let text = e.to_string();
        let text = text.trim_start_matches("step").trim_start();
        let style = match e.body {
            EventBody::Flag(_) => Style::new().fg(Color::LightRed),
            EventBody::Cleared { .. } => Style::new().fg(Color::Green),
            EventBody::Check { .. } | EventBody::Checkmate { .. } => Style::new().fg(Color::Yellow),
            _ => Style::new(),
        };
        // Wrapped lines hang under the event's first line, so that each
        // event reads as one.
        let mut rows = wrap_words(text, inner.saturating_sub(3));
        for r in rows.iter_mut().skip(1) {
            r.insert_str(0, "   ");
        }
        if used + rows.len() > rows_room {
            if used > 0 || rows_room == 0 {
                break;
            }
            // The newest event alone is too long: its beginning, rather
            // than an empty log.
            rows.truncate(rows_room);
        }
        used += rows.len();
        lines.extend(rows.into_iter().rev().map(|r| Line::styled(r, style)));
    }
    lines.reverse();
    frame.render_widget(
        Paragraph::new(lines).block(Block::bordered().title(" Log ")),
        area,
    );
}

fn draw_status(app: &App, panel: &Panel, frame: &mut Frame, area: Rect) {
    let (health, style) = match &app.shown.health {
        Health::Connected => ("● connected".to_string(), Style::new().fg(Color::Green)),
        Health::Busy => (
            "◌ busy: hands over the table".to_string(),
            Style::new().fg(Color::Yellow),
        ),
        Health::Unreadable => ("? unreadable".to_string(), Style::new().fg(Color::LightRed)),
        Health::Reconnecting(why) => (
            format!("↻ reconnecting ({why})"),
            Style::new().fg(Color::Yellow),
        ),
        Health::Stalled(why) => (format!("⏸ stalled ({why})"), Style::new().fg(Color::Yellow)),
        Health::Ended => (
            "■ input ended".to_string(),
            Style::new().fg(Color::DarkGray),
        ),
    };
    let source = match &app.source {
        Source::Script(s) => {
            let (done, all) = s.position();
            let keys = if s.ended() {
                "played out"
            } else if s.timed() {
                "stepping by itself"
            } else {
                "space: next step"
            };
            // The file's name: its folder would crowd out the keys.
            let name = std::path::Path::new(&app.source_name)
                .file_name()
                .map_or(app.source_name.clone(), |n| {
                    n.to_string_lossy().into_owned()
                });
            format!("script {name} · step {done}/{all} · {keys}")
        }
        Source::Mock(m) if m.is_chessboard() => {
            let at = m.cursor().square().unwrap_or_default();
            match m.held() {
                Some((card, from)) => format!(
                    "mock board {at} · hand {} from {}",
                    card.token(),
                    from.square().unwrap_or_default()
                ),
                None if m.pair_here().is_some() => {
                    let (lift, stay) = m.pair_here().expect("just seen");
                    format!("mock board {at} · space lifts {lift} (Tab: {stay})")
                }
                None => match m.card_to_place(None) {
                    Some(c) => format!("mock board {at} · u puts {c}"),
                    None => format!("mock board {at}"),
                },
            }
        }
        Source::Mock(m) => {
            let next = app.session.referee().next_card();
            let card = m
                .card_to_place(next)
                .map(|c| c.to_string())
                .unwrap_or_else(|| "-".into());
            format!("mock table · cursor {} · placing {card}", m.cursor())
        }
        Source::Live(l) => l.name.clone(),
    };
    let mut spans = vec![
        Span::styled(health, style),
        Span::raw(format!("  {source}")),
    ];
    if let Some(url) = &app.serving {
        spans.push(Span::styled(
            format!("  ⌁ {url}"),
            Style::new().fg(Color::Green),
        ));
    }
    if let Some(h) = &app.hint {
        spans.push(Span::styled(
            format!("  {h}"),
            Style::new().fg(Color::Yellow),
        ));
    } else if let Some(keys) = input_hint(app, panel) {
        spans.push(Span::styled(
            format!("  {keys}"),
            Style::new().fg(Color::Cyan),
        ));
    }
    spans.push(Span::raw("  ?: help  q: quit").dim());
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// The keys that matter now, for a game taking draws and calls from keys:
/// what the game waits for decides which.
fn input_hint(app: &App, panel: &Panel) -> Option<&'static str> {
    if !app.inputs || matches!(app.source, Source::Script(_)) || panel.result.is_some() {
        return None;
    }
    if app.armies {
        return Some(army_hint(app));
    }
    let offered = app.session.referee().offered_inputs();
    let offers = |call: &str| {
        offered
            .iter()
            .any(|o| matches!(o, Observation::Call { call: c, .. } if c == call))
    };
    let acting = panel.cards.as_ref().is_some_and(|c| c.drawn.is_some());
    let (mock, holding) = match &app.source {
        Source::Mock(m) => (true, m.held().is_some()),
        _ => (false, false),
    };
    // Short: the footer shares one line with the input's state, and the
    // help overlay has the rest.
    Some(if offers("save-king") {
        "K: play Save King  D: decline"
    } else if holding {
        "space: put down  Esc: put back"
    } else if acting && mock {
        "space: pick/put  !: check  n: draw"
    } else if acting {
        "!: call check  n: next draw"
    } else if mock && offers("check") {
        "n: draw  N: choose  !: check"
    } else if mock {
        "n: draw a card  N: choose it"
    } else {
        "n: say the card drawn  !: check"
    })
}

/// [`input_hint`] for Enochian Chess: what the game waits for first.
fn army_hint(app: &App) -> &'static str {
    let offered = app.session.referee().offered_inputs();
    let offers = |call: &str| {
        offered
            .iter()
            .any(|o| matches!(o, Observation::Call { call: c, .. } if c == call))
    };
    let rolls = offered.iter().any(|o| matches!(o, Observation::Roll(_)));
    let (mock, holding) = match &app.source {
        Source::Mock(m) => (true, m.held().is_some()),
        _ => (false, false),
    };
    if holding {
        "space: put down  Esc: put back"
    } else if offers("accept-exchange") {
        "A: accept the exchange  X: refuse"
    } else if rolls && mock {
        "r: roll the die"
    } else if rolls {
        "1-6: what the die shows"
    } else if offers("propose-exchange") {
        "E: propose an exchange"
    } else if offers("agree-draw") {
        "=: agree to a draw"
    } else if mock {
        "space: pick up  w: networks"
    } else {
        "w: networks"
    }
}

fn popup(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}

fn draw_help(app: &App, panel: &Panel, frame: &mut Frame, area: Rect) {
    let w = 76.min(area.width);
    let mut keys: Vec<(&str, Vec<(&str, &str)>)> = vec![(
        "",
        vec![
            ("?", "this help (any key closes it)"),
            (
                "q",
                "quit (asks first mid-game; the journal keeps the game)",
            ),
        ],
    )];
    match &app.source {
        Source::Script(_) => keys[0].1.push(("space n", "next step of the script")),
        Source::Live(_) => {}
        Source::Mock(m) => keys.push((
            if m.is_chessboard() {
                "Mock board"
            } else {
                "Mock table"
            },
            m.help().to_vec(),
        )),
    }
    if app.armies {
        let mut ks = vec![super::NETWORKS_HELP];
        if !matches!(app.source, Source::Script(_)) {
            ks.extend(super::ENOCHIAN_INPUT_HELP);
        }
        keys.push(("The die, calls and the networks", ks));
    } else if app.inputs && !matches!(app.source, Source::Script(_)) {
        keys.push(("Draws and calls", super::INPUT_HELP.to_vec()));
    }
    let mut legend = vec![
        ("! red", "a flagged cell: look here to mend the table"),
        ("> bold", "the last action"),
    ];
    // Twelve has no check.
    if panel.limit.is_none() {
        legend.push(("+ purple", "a piece giving check"));
    }
    if panel.armies.is_some() {
        legend.push(("*", "the square of the piece in hand"));
        legend.push((
            "uK rQ bB yP",
            "Blue Red Black Yellow: army letter, then the piece",
        ));
        legend.push((
            "uK+N",
            "a throne pair, king first (narrow squares: partner below)",
        ));
        legend.push(("u (corner)", "a throne: its army's letter, bottom-left"));
        legend.push((
            "grey chip",
            "a frozen piece: no move, no capture, not taken",
        ));
        legend.push((
            "A  C",
            "with w: the network, Aries (light) or Cancer (dark)",
        ));
    } else if panel.chessboard {
        legend.push(("*", "the square of the piece in hand"));
        legend.push((
            "░░",
            "a dark square; wP bK: a piece's colour, then its type",
        ));
    } else if panel.limit.is_some() {
        legend.push(("┄┆ yellow", "the area pieces may still reach"));
        legend.push(("x struck", "a surrounded Queen, out: take it off"));
        legend.push(("~ cyan", "a piece the Bishop just placed may send back"));
    } else {
        legend.push(("░░", "a face-down card (a vacant square)"));
        legend.push(("~ cyan", "a mated player's card: turn it face-down"));
    }
    let key_w = keys
        .iter()
        .flat_map(|(_, ks)| ks.iter())
        .chain(&legend)
        .map(|(k, _)| k.chars().count())
        .max()
        .unwrap_or(8)
        .clamp(8, 16);
    let section = |lines: &mut Vec<Line<'static>>, title: &str, ks: &[(&str, &str)]| {
        if !title.is_empty() {
            lines.push(Line::from(""));
            lines.push(Line::from(title.to_string()).bold());
        }
        for (k, what) in ks {
            lines.extend(help_lines(k, what, key_w, w.saturating_sub(2) as usize));
        }
    };
    let mut lines =
        vec![Line::from("The referee watches the table and flags what the rules forbid.").italic()];
    lines.push(Line::from(""));
    for (title, ks) in &keys {
        section(&mut lines, title, ks);
    }
    let mut with_legend = lines.clone();
    section(&mut with_legend, "On the board", &legend);
    // A short window keeps the keys; the introduction goes first, then the
    // legend of marks.
    if with_legend.len() as u16 + 2 <= area.height {
        lines = with_legend;
    } else if with_legend.len() as u16 <= area.height {
        with_legend.drain(..2);
        lines = with_legend;
    } else if lines.len() as u16 + 2 > area.height {
        lines.drain(..2);
    }
    let r = popup(area, w, lines.len() as u16 + 2);
    frame.render_widget(Clear, r);
    frame.render_widget(
        Paragraph::new(lines).block(Block::bordered().title(" Help ")),
        r,
    );
}

/// `text` cut into rows of at most `width` characters at spaces (a word
/// longer than a row is cut).
pub(crate) fn wrap_words(text: &str, width: usize) -> Vec<String> {
    let width = width.max(10);
    let mut rows: Vec<String> = vec![String::new()];
    for word in text.split(' ') {
        let last = rows.last_mut().expect("never empty");
        if !last.is_empty() && last.chars().count() + 1 + word.chars().count() > width {
            rows.push(String::new());
        }
        let mut word: Vec<char> = word.chars().collect();
        loop {
            let last = rows.last_mut().expect("never empty");
            if !last.is_empty() {
                last.push(' ');
            }
            let room = width.saturating_sub(last.chars().count()).max(1);
            if word.len() <= room {
                last.extend(word);
                break;
            }
            let rest = word.split_off(room);
            last.extend(word);
            word = rest;
            rows.push(String::new());
        }
    }
    rows
}

/// One key of the help: its label, then what it does, wrapped under
/// itself so that the keys stand out in their column.
fn help_lines(key: &str, what: &str, key_w: usize, width: usize) -> Vec<Line<'static>> {
    let indent = 2 + key_w + 1;
    wrap_words(what, width.saturating_sub(indent))
        .into_iter()
        .enumerate()
        .map(|(i, text)| {
            let k = if i == 0 { key } else { "" };
            Line::from(format!("  {k:<key_w$} {text}"))
        })
        .collect()
}

fn draw_confirm(frame: &mut Frame, area: Rect) {
    let r = popup(area, 56, 5);
    frame.render_widget(Clear, r);
    frame.render_widget(
        Paragraph::new(vec![
            Line::from("The game is not over. Quit?"),
            Line::from("The journal keeps it: arbiter play --resume").dim(),
            Line::from("y: quit    any other key: stay"),
        ])
        .block(Block::bordered().title(" Quit ")),
        r,
    );
}

#[cfg(test)]
mod tests {
    //! The four-army panel and board on a stand-in game: the view is a
    //! function of the `Panel`, whatever game fills it.

    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

    use super::*;
    use crate::games::{ArmyPanel, DiePanel, Game, Verdict};
    use crate::input::mock::MockTable;
    use crate::referee::Referee;
    use crate::table::{Card, Cell, Change, Token};
    use crate::tui::Source;

    /// A game that only shows: its table and panel are given.
    #[derive(Clone, Debug)]
    struct Shown {
        table: Table,
        panel: Panel,
        offered: Vec<Observation>,
    }

    impl Game for Shown {
        fn name(&self) -> &'static str {
            "enochian"
        }
        fn players(&self) -> Vec<String> {
            ["blue", "red", "black", "yellow"]
                .map(String::from)
                .to_vec()
        }
        fn table(&self) -> Table {
            self.table.clone()
        }
        fn translation_free(&self) -> bool {
            false
        }
        fn judge(&self, changes: &[Change]) -> Verdict<Self> {
            Verdict::Flag(crate::games::unexplained(changes, "EN-IO-1", "shown only"))
        }
        fn is_over(&self) -> bool {
            false
        }
        fn panel(&self) -> Panel {
            self.panel.clone()
        }
        fn offered_inputs(&self) -> Vec<Observation> {
            self.offered.clone()
        }
    }

    fn sq(square: &str) -> Cell {
        let b = square.as_bytes();
        Cell::new(i32::from(b[0] - b'a'), 8 - i32::from(b[1] - b'0'))
    }

    /// The EN-ARR-1 array, by hand.
    fn array() -> Table {
        let grid = "\
.. .. bR bK bB bQ .. ..
.. .. bP bP bP bP .. ..
yQ yP .. .. .. .. rP rR
yB yP .. .. .. .. rP rK
yK yP .. .. .. .. rP rB
yR yP .. .. .. .. rP rQ
.. .. uP uP uP uP .. ..
.. .. uQ uB uK uR .. ..";
        let mut t = Table::parse_grid(grid, Cell::default()).unwrap();
        let card = |s: &str| match Token::parse(s) {
            Ok(Some(Token::Up(c))) => c,
            _ => unreachable!(),
        };
        for (at, k, n) in [
            ("e1", "uK", "uN"),
            ("h5", "rK", "rN"),
            ("d8", "bK", "bN"),
            ("a4", "yK", "yN"),
        ] {
            t.set(sq(at), Some(Token::pair(card(k), card(n))));
        }
        t
    }

    fn army(c: Colour, element: &str, team: &str) -> ArmyPanel {
        ArmyPanel {
            colour: c,
            element: element.into(),
            team: team.into(),
            controller: c.name().into(),
            to_move: false,
            frozen: false,
            withdrawn: false,
            in_check: false,
            stalemated: false,
            king_off: false,
            prisoners: vec![],
            notes: vec![],
        }
    }

    fn panel(die: Option<DiePanel>) -> Panel {
        let mut armies = vec![
            army(Colour::Blue, "Air", "Air"),
            army(Colour::Red, "Fire", "Earth"),
            army(Colour::Black, "Water", "Air"),
            army(Colour::Yellow, "Earth", "Earth"),
        ];
        armies[0].to_move = true;
        let thrones = [
            ("d1", Colour::Blue),
            ("e1", Colour::Blue),
            ("h4", Colour::Red),
            ("h5", Colour::Red),
            ("d8", Colour::Black),
            ("e8", Colour::Black),
            ("a4", Colour::Yellow),
            ("a5", Colour::Yellow),
        ]
        .map(|(s, c)| (sq(s), c))
        .to_vec();
        Panel {
            chessboard: true,
            armies: Some(ArmiesPanel {
                mode: "four players".into(),
                armies,
                thrones,
                frozen_cells: vec![],
                die,
            }),
            ..Panel::default()
        }
    }

    fn app(game: Shown) -> App {
        let mock = MockTable::enochian(&game.table);
        App::new(
            Box::new(Referee::new(game)),
            Source::Mock(mock),
            "mock".into(),
            None,
            true,
        )
    }

    fn screen(app: &App, (w, h): (u16, u16)) -> String {
        let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
        t.draw(|f| draw(app, f)).unwrap();
        t.backend().to_string()
    }

    #[test]
    fn the_army_panel_fits_80x24() {
        let mut p = panel(None);
        let a = p.armies.as_mut().unwrap();
        a.armies[1].frozen = true;
        a.armies[1].king_off = true;
        a.armies[0].prisoners = vec![Card::new(Colour::Red, crate::table::Piece::King)];
        a.armies[3].in_check = true;
        a.armies[2].controller = "blue".into();
        a.frozen_cells = vec![sq("h4"), sq("g3")];
        let app = app(Shown {
            table: array(),
            panel: p,
            offered: vec![],
        });
        let s = screen(&app, (80, 24));
        for want in [
            "Blue", "Yellow", "FROZEN", "IN CHECK", "holds rK", "Moved by",
        ] {
            assert!(s.contains(want), "{want:?} missing:\n{s}");
        }
    }

    #[test]
    fn the_die_and_the_networks_show_on_request() {
        let die = DiePanel {
            roll: Some(2),
            needs: Some("a knight".into()),
            rerolls_used: 1,
            rerolls_max: 3,
        };
        let mut app = app(Shown {
            table: array(),
            panel: panel(Some(die)),
            offered: vec![],
        });
        app.on_key(KeyEvent::new(KeyCode::Char('w'), KeyModifiers::NONE));
        for size in [(80, 24), (120, 40)] {
            let s = screen(&app, size);
            assert!(s.contains("re-rolls 1/3"), "{s}");
            assert!(s.contains("Aries  uB d1 rQ h3 bB e8 yQ a6"), "{s}");
            assert!(s.contains("Cancer uQ c1 rB h4 bQ f8 yB a5"), "{s}");
        }
        // The help lists every key of the game, even at 80x24.
        app.on_key(KeyEvent::new(KeyCode::Char('?'), KeyModifiers::NONE));
        let s = screen(&app, (80, 24));
        for key in ["Tab", "r  1 … 6", "E  A  X", "W  ="] {
            assert!(s.contains(key), "{key:?} missing:\n{s}");
        }
        let s = screen(&app, (120, 40));
        assert!(s.contains("uK+N") && s.contains("grey chip"), "{s}");
    }

    #[test]
    fn the_roll_key_sends_an_offered_roll_or_says_why_not() {
        let mut app = app(Shown {
            table: array(),
            panel: panel(Some(DiePanel {
                rerolls_max: 3,
                ..DiePanel::default()
            })),
            offered: (1..=6).map(Observation::Roll).collect(),
        });
        app.on_key(KeyEvent::new(KeyCode::Char('r'), KeyModifiers::NONE));
        assert_eq!(app.session.next_step(), 1, "one roll observed");
        let mut app2 = self::app(Shown {
            table: array(),
            panel: panel(None),
            offered: vec![],
        });
        app2.on_key(KeyEvent::new(KeyCode::Char('r'), KeyModifiers::NONE));
        assert!(
            app2.hint
                .as_deref()
                .is_some_and(|h| h.contains("divination"))
        );
        app2.on_key(KeyEvent::new(KeyCode::Char('E'), KeyModifiers::NONE));
        assert!(app2.hint.as_deref().is_some_and(|h| h.contains("EN-XCH")));
        assert_eq!(app2.session.next_step(), 0);
    }
}
