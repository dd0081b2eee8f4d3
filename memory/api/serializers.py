"""Shapes of the memory API. Explicit fields only: no embeddings, no owner ids.

Output serializers read plain dicts built by ``memory.api.views`` (current strength and
dormancy are computed there, at one ``now``); their fields are ``read_only`` so the schema
marks them as always present. The graph endpoint renders its dicts directly (thousands of
rows) and uses ``GraphSerializer`` only to document them.
"""

from __future__ import annotations

from django.conf import settings
from rest_framework import serializers

from memory.models import NodeKind, Stability

RO = {"read_only": True}


# --- nodes and edges --------------------------------------------------------------------------


class NodeRefSerializer(serializers.Serializer):
    id = serializers.IntegerField(**RO)
    name = serializers.CharField(**RO)


class NodeSummarySerializer(serializers.Serializer):
    id = serializers.IntegerField(**RO)
    name = serializers.CharField(**RO)
    kind = serializers.ChoiceField(choices=NodeKind.choices, **RO)
    aliases = serializers.ListField(child=serializers.CharField(), **RO)
    degree = serializers.IntegerField(**RO, help_text="Live edges touching the node.")
    is_self = serializers.BooleanField(**RO, help_text="The node that stands for you.")
    provisional = serializers.BooleanField(
        **RO, help_text="Created for an unknown end of a memory; low confidence."
    )


class GraphEdgeSerializer(serializers.Serializer):
    id = serializers.IntegerField(**RO)
    source = serializers.IntegerField(**RO)
    target = serializers.IntegerField(**RO)
    relation = serializers.CharField(**RO)
    strength = serializers.FloatField(
        **RO, help_text="Current strength 0–100 (decayed since the last touch), 2 decimals."
    )
    strength_at_touch = serializers.FloatField(**RO)
    last_touched_at = serializers.DateTimeField(**RO)
    stability = serializers.ChoiceField(choices=Stability.choices, **RO)
    confidence = serializers.FloatField(**RO)
    dormant = serializers.BooleanField(
        **RO, help_text="Flagged dormant, below strength 2.0, or expired."
    )
    superseded = serializers.BooleanField(**RO, help_text="Replaced by a newer memory.")
    expires_at = serializers.DateTimeField(allow_null=True, **RO)


class GraphSerializer(serializers.Serializer):
    as_of = serializers.DateTimeField(**RO)
    nodes = NodeSummarySerializer(many=True, **RO)
    edges = GraphEdgeSerializer(many=True, **RO)


class SnippetSerializer(serializers.Serializer):
    text = serializers.CharField(**RO, help_text="Your own words, verbatim.")
    evidence = serializers.CharField(**RO)


# The graph's edge with its ends named and its words: ``source`` and ``target`` replace the
# ids in place (fields keep the graph edge's order). A comment, not a docstring: drf-spectacular
# would publish a docstring as the schema's description.
class EdgeSerializer(GraphEdgeSerializer):
    source = NodeRefSerializer(**RO)
    target = NodeRefSerializer(**RO)
    occurred = serializers.CharField(
        **RO,
        help_text="When it happened, from what you said: YYYY-MM-DD, YYYY-MM, YYYY or "
        "a day range YYYY-MM-DD/YYYY-MM-DD; empty when unknown.",
    )
    snippet = SnippetSerializer(allow_null=True, **RO)


class NodeEpisodeSerializer(serializers.Serializer):
    id = serializers.IntegerField(**RO)
    summary = serializers.CharField(**RO)
    started_at = serializers.DateTimeField(allow_null=True, **RO)
    ended_at = serializers.DateTimeField(allow_null=True, **RO)
    conversation_id = serializers.IntegerField(allow_null=True, **RO)


class NodeMergeSerializer(serializers.Serializer):
    id = serializers.IntegerField(**RO)
    status = serializers.CharField(
        **RO, help_text="merged, merged-flagged, held, kept-apart or reverted."
    )
    rule = serializers.CharField(**RO)
    reason = serializers.CharField(**RO)
    created_at = serializers.DateTimeField(**RO)
    absorbed_name = serializers.CharField(**RO)


class NodeDetailSerializer(serializers.Serializer):
    id = serializers.IntegerField(**RO)
    name = serializers.CharField(**RO)
    kind = serializers.ChoiceField(choices=NodeKind.choices, **RO)
    aliases = serializers.ListField(child=serializers.CharField(), **RO)
    properties = serializers.DictField(**RO)
    confidence = serializers.FloatField(**RO)
    provisional = serializers.BooleanField(**RO)
    is_self = serializers.BooleanField(**RO)
    episodes = NodeEpisodeSerializer(many=True, **RO)
    edges = EdgeSerializer(
        many=True,
        **RO,
        help_text="Every edge touching the node, dormant and superseded ones included.",
    )
    merges = NodeMergeSerializer(many=True, **RO, help_text="Merges that kept this node.")


class NodePatchSerializer(serializers.Serializer):
    """Each key is optional; they apply in this order, all or nothing."""

    name = serializers.CharField(
        required=False, max_length=200, help_text="The new name; the old one is kept as an alias."
    )
    kind = serializers.ChoiceField(choices=NodeKind.choices, required=False)
    add_alias = serializers.CharField(required=False, max_length=200)
    remove_alias = serializers.CharField(required=False, max_length=200)


class MergeRequestSerializer(serializers.Serializer):
    into = serializers.IntegerField(help_text="The node to keep; this node is absorbed into it.")


class MergeDecisionSerializer(serializers.Serializer):
    id = serializers.IntegerField(**RO)
    status = serializers.CharField(**RO, help_text="merged, merged-flagged or reverted.")
    kept = NodeRefSerializer(allow_null=True, **RO)
    absorbed_name = serializers.CharField(**RO)
    rule = serializers.CharField(**RO)
    created_at = serializers.DateTimeField(**RO)


class EpisodeSerializer(serializers.Serializer):
    id = serializers.IntegerField(**RO)
    summary = serializers.CharField(**RO)
    started_at = serializers.DateTimeField(allow_null=True, **RO)
    ended_at = serializers.DateTimeField(allow_null=True, **RO)
    conversation_id = serializers.IntegerField(allow_null=True, **RO)
    importance = serializers.FloatField(**RO)
    tags = serializers.ListField(child=serializers.CharField(), **RO)
    status = serializers.CharField(
        **RO, help_text="Extraction: pending, running, done, failed or skipped."
    )


# --- recall (SPEC §6.4) -----------------------------------------------------------------------


class RecallRequestSerializer(serializers.Serializer):
    message = serializers.CharField(trim_whitespace=False, allow_blank=True)

    def validate_message(self, value: str) -> str:
        limit = settings.CHAT_MAX_MESSAGE_CHARS
        if len(value) > limit:
            raise serializers.ValidationError(
                f"Ensure this field has no more than {limit} characters."
            )
        return value


class SeedSerializer(serializers.Serializer):
    name = serializers.CharField(**RO)
    kind = serializers.CharField(**RO)
    key = serializers.CharField(**RO, help_text="The name, alias or relation phrase matched.")
    similarity = serializers.FloatField(**RO)


class FiredSerializer(serializers.Serializer):
    id = serializers.IntegerField(**RO)
    name = serializers.CharField(**RO)
    kind = serializers.CharField(**RO)
    score = serializers.FloatField(**RO)
    direction = serializers.CharField(**RO, help_text="seed, forward or reverse.")
    hop = serializers.IntegerField(**RO)


class ContextSnippetSerializer(serializers.Serializer):
    """A snippet of an edge (``edge`` set) or, with the default Read, a passage from an earlier
    conversation (``edge`` null, ``message`` the source message id)."""

    node = serializers.CharField(**RO)
    edge = serializers.IntegerField(allow_null=True, **RO)
    message = serializers.IntegerField(allow_null=True, required=False, **RO)
    text = serializers.CharField(**RO)


class ReadRecordSerializer(serializers.Serializer):
    """What a Read recalled (SPEC §6.4)."""

    words = serializers.ListField(child=serializers.CharField(), **RO)
    seeds = SeedSerializer(many=True, **RO)
    fired = FiredSerializer(many=True, **RO)
    memory_lines = serializers.ListField(child=serializers.CharField(), **RO)
    context_snippets = ContextSnippetSerializer(many=True, **RO)
    crossed_edges = serializers.ListField(child=serializers.IntegerField(), **RO)
    text = serializers.CharField(**RO, help_text="The [MEMORY]/[CONTEXT] block, or empty.")
    timings_ms = serializers.DictField(child=serializers.FloatField(), **RO)


# --- graph documents (SPEC §6.1) ----------------------------------------------------------------


class GraphDocNodeSerializer(serializers.Serializer):
    id = serializers.CharField(help_text="A label, meaningful inside the document only.")
    kind = serializers.ChoiceField(choices=NodeKind.choices)
    name = serializers.CharField()
    aliases = serializers.ListField(child=serializers.CharField(), required=False)
    properties = serializers.DictField(required=False)
    confidence = serializers.FloatField(min_value=0, max_value=1, required=False)
    provisional = serializers.BooleanField(required=False)
    is_self = serializers.BooleanField(required=False)
    episodes = serializers.ListField(child=serializers.CharField(), required=False)


class GraphDocSnippetSerializer(serializers.Serializer):
    text = serializers.CharField()
    evidence = serializers.CharField(required=False, allow_blank=True)


class GraphDocEdgeSerializer(serializers.Serializer):
    id = serializers.CharField()
    source = serializers.CharField(help_text="A node id of this document.")
    relation = serializers.RegexField(r"^[A-Z][A-Z0-9]*(_[A-Z0-9]+){0,3}$")
    target = serializers.CharField(help_text="A node id of this document.")
    strength = serializers.FloatField(
        min_value=0,
        max_value=100,
        required=False,
        help_text="The stored strength at the last touch.",
    )
    last_touched_at = serializers.DateTimeField(required=False)
    confidence = serializers.FloatField(min_value=0, max_value=1, required=False)
    stability = serializers.ChoiceField(choices=Stability.choices, required=False)
    cardinality = serializers.ChoiceField(
        choices=[("one_to_one", "one_to_one"), ("one_to_many", "one_to_many")], required=False
    )
    expires_at = serializers.DateTimeField(allow_null=True, required=False)
    dormant = serializers.BooleanField(required=False)
    superseded_by = serializers.CharField(allow_null=True, required=False)
    episodes = serializers.ListField(child=serializers.CharField(), required=False)
    snippet = GraphDocSnippetSerializer(allow_null=True, required=False)


class GraphDocEpisodeSerializer(serializers.Serializer):
    id = serializers.CharField()
    started_at = serializers.DateTimeField(allow_null=True, required=False)
    ended_at = serializers.DateTimeField(allow_null=True, required=False)
    summary = serializers.CharField(required=False, allow_blank=True)
    importance = serializers.FloatField(min_value=0, max_value=1, required=False)
    tags = serializers.ListField(child=serializers.CharField(), required=False)


class GraphDocumentSerializer(serializers.Serializer):
    """A whole graph as ``pegasus-graph/1`` JSON (SPEC §6.1)."""

    format = serializers.ChoiceField(choices=[("pegasus-graph/1", "pegasus-graph/1")])
    nodes = GraphDocNodeSerializer(many=True, required=False)
    edges = GraphDocEdgeSerializer(many=True, required=False)
    episodes = GraphDocEpisodeSerializer(many=True, required=False)


class ImportSummarySerializer(serializers.Serializer):
    nodes = serializers.IntegerField(**RO)
    edges = serializers.IntegerField(**RO)
    episodes = serializers.IntegerField(**RO)
    snippets = serializers.IntegerField(**RO)
    node_keys = serializers.IntegerField(**RO)
    relation_keys = serializers.IntegerField(**RO)
    seconds = serializers.DictField(child=serializers.FloatField(), **RO)


# --- the merge inbox (memory.services.inbox) ----------------------------------------------------


class InboxLineSerializer(serializers.Serializer):
    id = serializers.IntegerField(**RO, help_text="The memory (edge) id.")
    text = serializers.CharField(**RO, help_text="The memory as `A -[RELATION]-> B`.")
    snippet = serializers.CharField(
        **RO, help_text="Your own sentence it came from, verbatim; empty when none."
    )
    dormant = serializers.BooleanField(**RO)


class InboxSideSerializer(serializers.Serializer):
    id = serializers.IntegerField(allow_null=True, **RO)
    name = serializers.CharField(**RO)
    kind = serializers.CharField(
        **RO,
        help_text="The node's kind now; empty for a candidate that no longer exists. A "
        "candidate of another kind cannot be the answer to `same`.",
    )
    exists = serializers.BooleanField(
        **RO, help_text="False once the node was merged or forgotten."
    )


class InboxDetailSideSerializer(InboxSideSerializer):
    lines = InboxLineSerializer(
        many=True, **RO, help_text="A few memories touching it, strongest first."
    )
    more = serializers.IntegerField(**RO, help_text="Memories touching it not listed.")


class InboxItemSerializer(serializers.Serializer):
    """A held merge decision asked as a question."""

    id = serializers.IntegerField(**RO)
    kind = serializers.ChoiceField(choices=NodeKind.choices, **RO)
    noun = serializers.CharField(**RO, help_text="person, place, organisation, event or thing.")
    question = serializers.CharField(
        **RO, help_text="e.g. “Is Matt the same person as Matt Patterson?”"
    )
    entity = InboxSideSerializer(**RO, help_text="The newly mentioned name, standing alone.")
    candidates = InboxSideSerializer(many=True, **RO, help_text="Who or what it might be.")
    state = serializers.ChoiceField(
        choices=[(v, v) for v in ("pending", "same", "different", "unsure", "moderator")],
        **RO,
        help_text="pending; your answer (same, different, unsure — unsure waits for a "
        "moderator); or moderator (a moderator settled it after your answer).",
    )
    status = serializers.CharField(**RO, help_text="The merge decision's status.")
    answer = serializers.CharField(**RO, help_text="Your answer; empty while pending.")
    answered_at = serializers.DateTimeField(allow_null=True, **RO)
    created_at = serializers.DateTimeField(**RO)
    staff_from = serializers.DateTimeField(
        allow_null=True,
        **RO,
        help_text="When moderators will see it if you leave it unanswered; null once answered.",
    )
    merged_into = NodeRefSerializer(allow_null=True, **RO)
    can_undo = serializers.BooleanField(**RO)


class InboxDetailSerializer(InboxItemSerializer):
    entity = InboxDetailSideSerializer(**RO)
    candidates = InboxDetailSideSerializer(many=True, **RO)


class InboxAnswerSerializer(serializers.Serializer):
    answer = serializers.ChoiceField(
        choices=[("same", "same"), ("different", "different"), ("unsure", "unsure")]
    )
    into = serializers.IntegerField(
        required=False,
        allow_null=True,
        help_text="With `same`: which candidate (optional when there is only one).",
    )
