"""The memory graph's tables (SPEC §4). Every row carries its owner; see ``lib.owned``."""

from lib.owned import OwnedQuerySet, get_owned_or_404
from memory.models.corrections import Correction, CorrectionAction
from memory.models.edges import Cardinality, Edge, EdgeEpisode, Stability
from memory.models.episodes import Episode, ExtractionStatus
from memory.models.keys import MemoryKey
from memory.models.merges import MergeDecision, MergeStatus
from memory.models.nodes import Node, NodeEpisode, NodeKind
from memory.models.sentences import ForgottenText, Sentence
from memory.models.snippets import Snippet
from memory.models.traversals import Traversal
from memory.models.versions import GraphVersion

__all__ = [
    "Cardinality",
    "Correction",
    "CorrectionAction",
    "Edge",
    "EdgeEpisode",
    "Episode",
    "ExtractionStatus",
    "ForgottenText",
    "GraphVersion",
    "MemoryKey",
    "MergeDecision",
    "MergeStatus",
    "Node",
    "NodeEpisode",
    "NodeKind",
    "OwnedQuerySet",
    "Sentence",
    "Snippet",
    "Stability",
    "Traversal",
    "get_owned_or_404",
]
