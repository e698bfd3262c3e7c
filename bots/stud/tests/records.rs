//! The six game records of the paper (Tables 5.3–5.7 and B.2, spec §7.6) replayed through the
//! engine: every bet must be legal, every pot after an interval equal to the table, every final
//! result equal. The human is position 0 (acts first), the system position 1.

use yomi_stud::cards::{Deal, DealSet};
use yomi_stud::engine::{Action, Ending, Phase, Stage, StudGame};
use yomi_stud::hand::{EvalRules, TieRule};

/// One record: per interval, the amounts in order (first, second, first), `None` = drop.
struct Record {
    name: &'static str,
    turns: Vec<Vec<Option<u64>>>,
    pots: Vec<u64>,
    system_net: i64,
    deal: Deal,
}

fn d(x: u64) -> Option<u64> {
    Some(x)
}

/// A deal consistent with the record's text where the result depends on the cards.
fn showdown_deal(line: &str) -> Deal {
    Deal::parse(line).unwrap()
}

fn records() -> Vec<Record> {
    let any = || DealSet::seeded(2004, 1).deals[0].clone();
    vec![
        Record {
            name: "5.3",
            turns: vec![
                vec![d(3), d(13), d(10)],
                vec![d(18), d(54), d(36)],
                vec![d(10), d(115), d(105)],
                vec![d(20), d(193), d(173)],
                vec![d(200), d(701), d(501)],
                vec![d(100), d(1462), None],
            ],
            pots: vec![36, 144, 374, 760, 2162, 3724],
            system_net: 1181,
            deal: any(),
        },
        Record {
            name: "5.4",
            turns: vec![
                vec![d(10), d(12), d(2)],
                vec![d(10), d(40), d(30)],
                vec![d(10), d(117), d(107)],
                vec![d(10), d(72), d(62)],
                vec![d(1), d(336), d(335)],
                vec![None],
            ],
            pots: vec![34, 114, 348, 492, 1164, 1164],
            system_net: 582,
            deal: any(),
        },
        Record {
            name: "5.5",
            turns: vec![
                vec![d(7), d(7)],
                vec![d(12), d(12)],
                vec![d(12), d(12)],
                vec![d(12), d(27), d(15)],
                vec![d(5), d(83), d(78)],
                vec![d(2), d(190), d(188)],
                vec![d(22), None],
            ],
            pots: vec![24, 48, 72, 126, 292, 672, 694],
            system_net: -336,
            deal: any(),
        },
        Record {
            name: "5.6",
            turns: vec![
                vec![d(5), d(9), d(4)],
                vec![d(20), d(24), d(4)],
                vec![d(76), d(128), d(52)],
                vec![d(332), d(618), d(286)],
                vec![d(1500), d(3013), d(1513)],
                vec![d(1000), d(8594), d(7594)],
                vec![d(24782), d(35065), d(10283)],
            ],
            pots: vec![28, 76, 332, 1568, 7594, 24782, 94912],
            system_net: 47456,
            // Subject 10: two pair 4s and 2s; the system: a diamond flush, 3c in the hole.
            deal: showdown_deal("4c 2c 4h 2h 8s Qs 6c | Kd 3c 2d 5d 9d Jc 7d"),
        },
        Record {
            name: "5.7",
            turns: vec![
                vec![d(10), d(16), d(6)],
                vec![d(40), d(40)],
                vec![d(10), d(98), d(88)],
                vec![d(100), d(418), d(318)],
                vec![d(10), d(1164), d(1154)],
                vec![d(1), d(3483), None],
            ],
            pots: vec![42, 122, 318, 1154, 3482, 6966],
            system_net: 1742,
            deal: any(),
        },
        Record {
            name: "B.2",
            turns: vec![
                vec![d(10), d(15), d(5)],
                vec![d(11), d(30), d(19)],
                vec![d(11), d(73), d(62)],
                vec![d(210), d(413), d(203)],
                vec![d(397), d(645), d(248)],
                vec![d(752), d(2471), d(1719)],
                vec![d(281), d(5318), d(5037)],
            ],
            pots: vec![40, 100, 246, 1072, 2362, 7304, 17940],
            system_net: -8970,
            // Subject 9: a king-high straight; the system: aces and kings.
            deal: showdown_deal("9c Tc Qh Ks Jh 4d 4s | As Kh Ad Kc 6s Jd 3c"),
        },
    ]
}

/// Turns a recorded amount into the action it must be in the stage it was made in.
fn action(stage: Stage, amount: Option<u64>) -> Action {
    match (stage, amount) {
        (_, None) => Action::Drop,
        (Stage::Open, Some(x)) => Action::Open(x),
        (Stage::Respond { open }, Some(y)) if y == open => Action::Call,
        (Stage::Respond { .. }, Some(y)) => Action::Raise(y),
        (Stage::FaceRaise { open, raise }, Some(y)) => {
            assert_eq!(y, raise - open, "a call after a raise pays the difference");
            Action::Call
        }
    }
}

#[test]
fn the_six_records_replay_exactly() {
    for r in records() {
        let mut g = StudGame::new(r.deal.clone(), TieRule::HandCardsOnly, EvalRules::default());
        for (i, turn) in r.turns.iter().enumerate() {
            if g.phase == Phase::Reveal {
                let first_hole = [g.hole(0)[0], g.hole(1)[0]];
                g.reveal(first_hole).unwrap();
            }
            assert_eq!(g.turn as usize, i + 1, "{}: interval", r.name);
            for amount in turn {
                let Phase::Bet(stage) = g.phase else {
                    panic!("{}: no betting at turn {}", r.name, i + 1)
                };
                let pos = g.to_act().unwrap();
                g.bet(pos, action(stage, *amount))
                    .unwrap_or_else(|e| panic!("{} turn {}: {}", r.name, i + 1, e.message));
            }
            assert_eq!(g.pot, r.pots[i], "{}: pot after interval {}", r.name, i + 1);
        }
        assert!(matches!(g.phase, Phase::Over(_)), "{}: game over", r.name);
        assert_eq!(g.net().unwrap(), [-r.system_net, r.system_net], "{}: final result", r.name);
    }
}

#[test]
fn showdown_records_end_as_the_text_says() {
    let rs = records();
    for (r, winner) in [(&rs[3], 1), (&rs[5], 0)] {
        let mut g = StudGame::new(r.deal.clone(), TieRule::HandCardsOnly, EvalRules::default());
        for turn in &r.turns {
            if g.phase == Phase::Reveal {
                g.reveal([g.hole(0)[0], g.hole(1)[0]]).unwrap();
            }
            for amount in turn {
                let Phase::Bet(stage) = g.phase else { unreachable!() };
                g.bet(g.to_act().unwrap(), action(stage, *amount)).unwrap();
            }
        }
        assert_eq!(g.phase, Phase::Over(Ending::Showdown { winner: Some(winner) }), "{}", r.name);
    }
}

#[test]
fn illegal_bets_are_rejected_and_change_nothing() {
    let mut g = StudGame::new(
        DealSet::seeded(1, 1).deals[0].clone(),
        TieRule::HandCardsOnly,
        EvalRules::default(),
    );
    assert!(g.bet(1, Action::Open(3)).unwrap_err().message.contains("not position 2's turn"));
    assert!(g.bet(0, Action::Open(0)).is_err());
    assert!(g.bet(0, Action::Open(11)).unwrap_err().message.contains("pot 10"));
    assert!(g.bet(0, Action::Call).is_err());
    g.bet(0, Action::Open(3)).unwrap();
    assert!(g.bet(1, Action::Raise(14)).is_err(), "pot limit is 13 with the open");
    assert!(g.bet(1, Action::Raise(3)).is_err(), "a raise must exceed the open");
    g.bet(1, Action::Raise(13)).unwrap();
    let before = (g.pot, g.contrib, g.log.len());
    assert!(g.bet(0, Action::Raise(30)).unwrap_err().message.contains("one raise"));
    assert_eq!((g.pot, g.contrib, g.log.len()), before);
    g.bet(0, Action::Call).unwrap();
    assert_eq!((g.pot, g.turn), (36, 2));
    // The reveal phase only takes face-down cards of the right position.
    for _ in 2..=5 {
        g.bet(0, Action::Open(1)).unwrap();
        g.bet(1, Action::Call).unwrap();
    }
    assert_eq!(g.phase, Phase::Reveal);
    let up = g.up(0)[0];
    assert!(g.reveal([up, g.hole(1)[0]]).is_err());
    assert!(g.reveal([g.hole(1)[0], g.hole(1)[1]]).is_err());
    assert!(g.bet(0, Action::Open(1)).is_err());
    g.reveal([g.hole(0)[2], g.hole(1)[0]]).unwrap();
    assert_eq!((g.hole(0).len(), g.up(0).len()), (2, 5));
}
