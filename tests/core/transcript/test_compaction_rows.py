"""The rows a compaction adds to a transcript (Qt-free): its marker, its summary while open, which messages hide under
it, and which markers show when compactions take each other over or are undone."""

from __future__ import annotations

from desktop_copilot.core.conversation.models import Compaction
from desktop_copilot.core.transcript.chunking import TARGET_CHARS
from desktop_copilot.core.transcript.compactions import CompactionRows
from desktop_copilot.core.transcript.segments import compaction_rows, origin_row

ORDER = [f"m{n}" for n in range(12)]
POSITIONS = {message_id: n for n, message_id in enumerate(ORDER)}


def _compaction(first: int, last: int, **fields) -> Compaction:
    return Compaction(first_message_id=ORDER[first], last_message_id=ORDER[last], messages=last - first + 1,
                      summary=fields.pop("summary", "What was said."), tokens_before=50_000, tokens_after=900, **fields)


def test_a_closed_marker_is_one_row_and_an_open_one_adds_its_summary_in_pieces():
    summary = "\n".join(f"Point {n}: " + "words " * 40 for n in range(30))
    compaction = _compaction(0, 5, summary=summary)
    [marker] = compaction_rows("m0", compaction, opened=False)
    assert (marker.kind, marker.block, marker.state) == ("compaction", -2, (compaction.id, "summary", 6, 50_000, 900, False, False))
    rows = compaction_rows("m0", compaction, opened=True)
    assert rows[0].state[-1] is True and {row.kind for row in rows[1:]} == {"compaction_summary"}
    pieces = rows[1:]
    assert len(pieces) > 1 and all(row.end - row.start <= 4 * TARGET_CHARS for row in pieces)
    assert "".join(summary[row.start : row.end] for row in pieces) == summary
    assert pieces[0].head and not pieces[0].tail and pieces[-1].tail and all(row.state == (compaction.id, summary) for row in pieces)
    assert len({row.key for row in rows}) == len(rows)


def test_an_undone_or_dropped_compaction_shows_no_summary():
    assert len(compaction_rows("m0", _compaction(0, 5, undone=True), opened=True)) == 1
    assert len(compaction_rows("m0", _compaction(0, 5, kind="dropped", summary="The summary request failed."), opened=True)) == 1


def test_a_collapsed_compaction_hides_its_messages_but_the_first_ones_marker():
    compaction = _compaction(2, 6)
    rows = CompactionRows([compaction], origin=("conv_1", "Rivers"))
    rows.derive(ORDER, POSITIONS)
    assert rows.hidden == set(ORDER[2:7]) and rows.buried == set(ORDER[3:7])
    assert [row.kind for row in rows.lead("m2", 2)] == ["compaction"] and rows.lead("m3", 3) == []
    assert rows.lead("m0", 0) == [origin_row("m0", "conv_1", "Rivers")]
    rows.open.add(compaction.id)
    rows.derive(ORDER, POSITIONS)
    assert rows.hidden == set() and [row.kind for row in rows.lead("m2", 2)] == ["compaction", "compaction_summary"]


def test_an_undone_compaction_starts_open_and_one_made_later_closed():
    undone = _compaction(0, 3, undone=True)
    rows = CompactionRows([undone])
    assert rows.open == {undone.id}
    later = _compaction(4, 7)
    rows.put(later)
    rows.derive(ORDER, POSITIONS)
    assert rows.hidden == set(ORDER[4:8])
    assert rows.undo(later.id) and rows.find(later.id).undone and not later.undone  # the session's object is left alone
    rows.derive(ORDER, POSITIONS)
    assert rows.hidden == set() and not rows.undo("cmp_unknown")


def test_a_compaction_taken_over_shows_no_marker_until_the_one_that_took_it_over_is_undone():
    first = _compaction(0, 3)
    second = _compaction(0, 7, replaces=[first.id])
    rows = CompactionRows([first, second])
    rows.derive(ORDER, POSITIONS)
    assert rows.leads == {"m0": [second]} and rows.hidden == set(ORDER[:8])
    rows.undo(second.id)
    rows.derive(ORDER, POSITIONS)
    assert [c.id for c in rows.leads["m0"]] == [second.id, first.id]  # the undone one first, the one in effect above its messages
    assert rows.hidden == set(ORDER[:4])


def test_an_undone_compaction_inside_one_in_effect_shows_no_marker_and_a_missing_message_shows_none():
    undone = _compaction(0, 3, undone=True)
    live = _compaction(0, 7)
    rows = CompactionRows([undone, live])
    rows.derive(ORDER, POSITIONS)
    assert rows.leads == {"m0": [live]}
    gone = CompactionRows([_compaction(0, 3)])
    gone.derive(ORDER[:2], {m: n for n, m in enumerate(ORDER[:2])})  # its last message became an earlier version
    assert gone.leads == {} and gone.hidden == set()


def test_a_compaction_whose_messages_are_not_all_shown_hides_nothing_it_took_over():
    """The one that took the first over lost its last message (an earlier version now): the first's marker shows."""
    first = _compaction(0, 3)
    second = _compaction(0, 7, replaces=[first.id])
    rows = CompactionRows([first, second])
    order = ORDER[:6]
    rows.derive(order, {message_id: n for n, message_id in enumerate(order)})
    assert rows.leads == {"m0": [first]} and rows.hidden == set(ORDER[:4])
