"""The engines' extraction parsers as modelled from their code (harness/cache_audit/engines.py)."""

from __future__ import annotations

from harness.cache_audit.engines import engine_parser, graphrag_counts, lightrag_counts, lightrag_legacy_counts
from harness.cache_audit.entry import EngineCounts

CLEAN = '("entity"<|>A<|>PERSON<|>a)##\n("entity"<|>B<|>GEO<|>b)##\n("relationship"<|>A<|>B<|>r<|>5)##\n<|COMPLETE|>'
GLUED = '("entity"<|>A<|>PERSON<|>a)##\n("relationship"<|>A<|>B<|>r<|>5)\n<|COMPLETE|>\nNote: done.'


def test_graphrag_0x_sets_every_weight_to_1() -> None:
    # 0.1-0.3.1: float(x) if isinstance(x, numbers.Number) else 1.0 -- x is a string, so always 1.0
    assert graphrag_counts(CLEAN, "graphrag-0.x") == EngineCounts(2, 1, 1)


def test_graphrag_2x_and_3x_parse_the_weight() -> None:
    assert graphrag_counts(CLEAN, "graphrag-2.x") == EngineCounts(2, 1, 0)
    assert graphrag_counts(CLEAN, "graphrag-3.x") == EngineCounts(2, 1, 0)


def test_graphrag_3x_does_not_split_on_the_completion_delimiter() -> None:
    # last record "("relationship"<|>A<|>B<|>r<|>5)\n<|COMPLETE|>\nNote: done." -> only the "(" is
    # stripped, the last field is '5)\n<|COMPLETE|>\nNote: done.' -> float() fails -> weight 1.0
    assert graphrag_counts(GLUED, "graphrag-3.x") == EngineCounts(1, 1, 1)


def test_graphrag_needs_the_quoted_tag() -> None:
    text = '(entity<|>A<|>PERSON<|>a)##\n("entity"<|>B<|>GEO)##\n("relationship"<|>A<|>B<|>r<|>x)'
    # unquoted tag: dropped; 3 fields: dropped; relationship kept with a fallback weight
    assert graphrag_counts(text, "graphrag-3.x") == EngineCounts(0, 1, 1)


def test_lightrag_current() -> None:
    text = ("entity<|#|>A<|#|>person<|#|>a\nentity<|#|>B<|#|>per(son<|#|>b\n"
            "relation<|#|>A<|#|>C<|#|>k<|#|>d\nrelation<|#|>A<|#|>A<|#|>k<|#|>self\n"
            "entity<|#|>C<|#|>geo<|#|>c<|#|>relation<|#|>C<|#|>A<|#|>k<|#|>d\n<|COMPLETE|>")
    # A kept; B's type holds "(" -> dropped; A-C kept; A-A self-loop dropped; the last line holds
    # two records run together: C (entity) and C-A (relation), both kept -> 2 entities, 2 relations
    assert lightrag_counts(text) == EngineCounts(2, 2, None)


def test_lightrag_legacy() -> None:
    text = ('("entity"<|>"A"<|>"person"<|>"a")##("relationship"<|>"A"<|>"B"<|>"r"<|>"k"<|>0.9)##'
            '("relationship"<|>"A"<|>"C"<|>"r"<|>"k"<|>high)<|COMPLETE|>')
    assert lightrag_legacy_counts(text) == EngineCounts(1, 2, 1)


def test_engine_parser_picks_the_lightrag_generation_by_delimiter() -> None:
    assert engine_parser("lightrag", "entity<|#|>A<|#|>t<|#|>d")[0] == "lightrag>=1.4.8"
    assert engine_parser("lightrag", '("entity"<|>A<|>t<|>d)')[0] == "lightrag<=1.4.7"
    assert engine_parser("graphrag-2.x", "")[0] == "graphrag-2.x"


# Bugs found by comparing with the real versions' parsers (tests/fixtures/engine_parsing/,
# tests/scoring/test_engine_reading_real_answers.py):

REPEATS = ('("entity"<|>ARN<|>GEO<|>a river)##("entity"<|>Arn<|>GEO<|>the Arn)##("entity"<|>MILLBROOK<|>GEO<|>a town)##'
           '("relationship"<|>ARN<|>MILLBROOK<|>flows past<|>5)##("relationship"<|>MILLBROOK<|>ARN<|>lies on<|>4)')


def test_graphrag_before_3x_keeps_one_node_per_name_and_one_edge_per_pair() -> None:
    # 0.x-2.x read the records into one undirected networkx graph (names upper-cased); 3.x keeps rows
    assert graphrag_counts(REPEATS, "graphrag-2.x") == EngineCounts(2, 1, 0)
    assert graphrag_counts(REPEATS, "graphrag-1.x") == EngineCounts(2, 1, 0)
    assert graphrag_counts(REPEATS, "graphrag-3.x") == EngineCounts(3, 2, 0)


def test_graphrag_before_3x_counts_as_entities_the_names_an_entity_record_typed() -> None:
    # a node with no type is what a relationship's endpoint makes: not an entity record's node
    text = '("entity"<|>A<|> <|>no type)##("entity"<|>B<|>GEO<|>b)##("relationship"<|>A<|>C<|>r<|>1)'
    assert graphrag_counts(text, "graphrag-2.x") == EngineCounts(1, 1, 0)


def test_lightrag_legacy_needs_a_name_type_and_description_once_quotes_are_stripped() -> None:
    text = ('("entity"<|>""<|>"vessel"<|>"nameless")##("entity"<|>"A"<|>""<|>"typeless")##'
            '("entity"<|>"B"<|>"person"<|>"")##("relationship"<|>"A"<|>"A"<|>"self"<|>"k"<|>1)<|COMPLETE|>')
    assert lightrag_legacy_counts(text) == EngineCounts(0, 0, 0)


def test_lightrag_legacy_keeps_a_lone_quote_as_a_name() -> None:
    # normalize_extracted_info removes one pair of surrounding quotes, not a lone one
    assert lightrag_legacy_counts('("entity"<|>"<|>GEO<|>"a town")') == EngineCounts(1, 0, 0)


def test_lightrag_legacy_reads_the_parentheses_of_one_line() -> None:
    # re.search(r"\((.*)\)", record) without DOTALL: a record spread over lines is read from its
    # first line only; the strength may be quoted
    assert lightrag_legacy_counts('("entity"<|>"A"<|>"person"\n<|>"a")') == EngineCounts(0, 0, 0)
    assert lightrag_legacy_counts('("relationship"<|>"A"<|>"B"<|>"r"<|>"k"<|>"7")') == EngineCounts(0, 1, 0)


def test_lightrag_splits_run_together_records_as_it_does() -> None:
    # the piece after `<|#|>entity<|#|>` gets `entity<|` back, not `entity<|#|>`: that entity is lost
    text = ("entity<|#|>A<|#|>person<|#|>a<|#|>entity<|#|>B<|#|>vessel<|#|>b"
            "<|#|>relation<|#|>A<|#|>B<|#|>k<|#|>r\n<|COMPLETE|>")
    assert lightrag_counts(text) == EngineCounts(1, 1, None)


def test_lightrag_mends_corrupted_delimiters() -> None:
    # fix_tuple_delimiter_corruption: <#>, <|#|, |#|>, <||#> become <|#|>; `<|person` is not mended
    text = ("entity<#>A<#>person<#>a\nentity<|#|B<|#|>vessel|#|>b\nrelation<||#>A<|#|>B<|#|>k<|#|>r\n"
            "entity<|#|>C<|person<|#|>c\n<|COMPLETE|>")
    assert lightrag_counts(text) == EngineCounts(2, 1, None)
