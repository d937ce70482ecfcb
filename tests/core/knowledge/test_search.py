"""Knowledge search over a real index: BM25 in English and Chinese on a small corpus with known answers, source
filters, the per-file limit, fusion with the embedding side, and embeddings that fail falling back to words."""

from __future__ import annotations

import asyncio

import pytest

from desktop_copilot.core.knowledge.indexer import index_source
from desktop_copilot.core.knowledge.library import KnowledgeError, KnowledgeLibrary
from desktop_copilot.core.knowledge.query import bm25_query, fuse
from desktop_copilot.core.knowledge.search import PER_FILE, search_knowledge

CORPUS = {
    "astronomy/telescopes.md": "# Telescopes\n\nA refracting telescope uses lenses to bend light; a reflecting telescope "
                               "uses mirrors. Aperture decides how faint a star you can see.\n",
    "cooking/bread.md": "# Sourdough bread\n\nFeed the starter the night before. Knead the dough, let it rise for "
                        "four hours, and bake at 230 degrees.\n",
    "garden/roses.txt": "Prune roses in late winter. Water them at the base in the morning so the leaves stay dry.\n",
    "code/retry.py": "def retry_with_backoff(call, attempts=5):\n    \"\"\"Call again after an exponential backoff delay.\"\"\"\n"
                     "    for attempt in range(attempts):\n        pass\n",
    "中文/天气.txt": "明天北京有大雨，气温下降到十度。\n\n出门记得带伞。\n",
    "中文/茶.md": "# 绿茶\n\n龙井是杭州西湖的绿茶，冲泡水温八十度左右。\n",
    "中文/火车.txt": "从上海到北京的高铁大约需要四个半小时。\n",
}
QUESTIONS = [
    ("how do reflecting telescopes use mirrors", "astronomy/telescopes.md"),
    ("at what temperature should sourdough bake", "cooking/bread.md"),
    ("when to prune roses", "garden/roses.txt"),
    ("exponential backoff retry", "code/retry.py"),
    ("北京明天会下雨吗", "中文/天气.txt"),
    ("龙井茶用多少度的水冲泡", "中文/茶.md"),
    ("上海到北京高铁要多久", "中文/火车.txt"),
]


@pytest.fixture
def library(tmp_path):
    root = tmp_path / "corpus"
    for path, text in CORPUS.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    library = KnowledgeLibrary.in_folder(tmp_path / "data")
    index_source(library, library.add_source(root, "corpus"))
    yield library
    library.close()


def search(library, question, **options):
    return asyncio.run(search_knowledge(library, question, **options))


@pytest.mark.parametrize(("question", "expected"), QUESTIONS)
def test_the_right_file_comes_first_in_english_and_chinese(library, question, expected):
    result = search(library, question)
    assert result.hits and result.hits[0].passage.path == expected
    assert not result.hybrid and result.hits[0].score > 0


def test_query_building():
    assert bm25_query("how do the telescopes work") == '"telescopes" OR "work"'
    assert bm25_query("北京天气") == '"北 京" OR "京 天" OR "天 气"'
    assert bm25_query("的") is None and bm25_query("  ") is None
    assert bm25_query("the") == '"the"'  # only common words: searched for anyway
    assert bm25_query('quote" NEAR(alpha*') == '"quote" OR "near" OR "alpha"'  # no FTS syntax gets through


def test_sources_filter_and_unknown_source(library, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    (other / "t.md").write_text("Telescopes on the other shelf, refracting and reflecting telescopes.\n")
    index_source(library, library.add_source(other, "shelf"))
    assert {h.passage.source for h in search(library, "reflecting telescopes").hits} == {"corpus", "shelf"}
    assert {h.passage.source for h in search(library, "reflecting telescopes", sources=["Shelf"]).hits} == {"shelf"}
    with pytest.raises(KnowledgeError, match="No switched-on knowledge source is called nope"):
        search(library, "x", sources=["nope"])
    library.set_enabled("shelf", False)
    assert {h.passage.source for h in search(library, "reflecting telescopes").hits} == {"corpus"}


def test_a_long_file_does_not_crowd_out_the_others(tmp_path):
    root = tmp_path / "c"
    root.mkdir()
    (root / "long.md").write_text("\n\n".join(f"# Part {n}\n\nZebra facts number {n}, more zebra stripes." for n in range(30)))
    (root / "short.md").write_text("One zebra note.\n")
    library = KnowledgeLibrary.in_folder(tmp_path / "d")
    index_source(library, library.add_source(root))
    hits = search(library, "zebra", top_k=10).hits
    assert sum(h.passage.path == "long.md" for h in hits) == PER_FILE
    assert any(h.passage.path == "short.md" for h in hits)
    library.close()


class Nearest:
    def __init__(self, library, favourite: str, fail: Exception | None = None) -> None:
        self.library, self.favourite, self.fail = library, favourite, fail
        self.asked: list[tuple[str, object]] = []

    async def nearest(self, question, allowed, limit):
        self.asked.append((question, allowed))
        if self.fail:
            raise self.fail
        ids = [r[0] for r in self.library.db.execute(
            "SELECT p.id FROM passages p JOIN files f ON f.id = p.file_id WHERE f.path = ?", (self.favourite,))]
        return [(i, 0.9) for i in ids]


def test_fusion_brings_in_what_only_the_embeddings_found(library):
    nearest = Nearest(library, "garden/roses.txt")
    result = search(library, "reflecting telescope mirrors", nearest=nearest)
    assert result.hybrid and result.note == ""
    paths = [h.passage.path for h in result.hits]
    assert paths[:2] == ["astronomy/telescopes.md", "garden/roses.txt"] or paths[:2] == ["garden/roses.txt", "astronomy/telescopes.md"]
    roses = next(h for h in result.hits if h.passage.path == "garden/roses.txt")
    assert roses.vector_rank == 1 and roses.bm25_rank is None
    assert nearest.asked == [("reflecting telescope mirrors", None)]


def test_embeddings_that_fail_fall_back_to_words_and_say_so(library):
    result = search(library, "sourdough", nearest=Nearest(library, "", fail=RuntimeError("Ollama is not running at http://127.0.0.1:11434")))
    assert not result.hybrid and "Ollama is not running" in result.note
    assert result.hits[0].passage.path == "cooking/bread.md"


def test_reciprocal_rank_fusion():
    fused = dict(fuse([[1, 2, 3], [3, 4]]))
    assert fused[3] == pytest.approx(1 / 63 + 1 / 61)
    assert max(fused, key=fused.get) == 3 and fused[1] > fused[4]


def test_the_embedding_side_is_limited_to_the_sources_asked_for(library, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    (other / "t.md").write_text("Telescopes on the other shelf.\n")
    index_source(library, library.add_source(other, "shelf"))
    nearest = Nearest(library, "t.md")
    search(library, "telescopes", sources=["SHELF"], nearest=nearest)
    shelf_ids = [r[0] for r in library.db.execute(
        "SELECT p.id FROM passages p JOIN files f ON f.id = p.file_id JOIN sources s ON s.id = f.source_id WHERE s.name = 'shelf'")]
    assert nearest.asked == [("telescopes", shelf_ids)]
    library.set_enabled("shelf", False)  # every switched-on source, but not every source: the others are left out
    search(library, "telescopes", nearest=nearest)
    assert set(nearest.asked[-1][1]) == {r[0] for r in library.db.execute(
        "SELECT p.id FROM passages p JOIN files f ON f.id = p.file_id JOIN sources s ON s.id = f.source_id WHERE s.name = 'corpus'")}
