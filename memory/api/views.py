"""The memory API: graph, nodes, edges, merges, the merge inbox, episodes, recall, export and
import.

Thin views: every row is reached through ``for_user`` (another user's id is a 404), writes go
through the services (``memory.services.corrections``, ``merge``, ``inbox``, ``graph_io``,
``read``), and current strength and dormancy are judged at one ``now`` per request (SPEC §5.4).
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime

from django.db.models import BooleanField, CharField, F, Func, Q, Value
from django.db.models.expressions import RawSQL
from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.generics import GenericAPIView, ListAPIView
from rest_framework.response import Response

from lib.api import (
    ApiError,
    ApiMixin,
    ApiView,
    Conflict,
    ErrorSerializer,
    ImportJSONParser,
)
from memory.api import serializers as s
from memory.core.decay import is_dormant, strength_at
from memory.models import Edge, Episode, MergeDecision, Node, NodeKind
from memory.services import corrections, inbox
from memory.services.decay import dormancy_sql
from memory.services.graph_io.document import (
    GraphConflictError,
    GraphFormatError,
    GraphTooLargeError,
)
from memory.services.graph_io.export import export_graph
from memory.services.graph_io.import_ import import_graph
from memory.services.merge import MergeError, merge_nodes, revert_merge
from memory.services.read import recall

TAGS = ["memory"]
_ALIAS_SEPARATOR = "\x1f"  # joins aliases for substring search; never part of a name


# --- presenting rows --------------------------------------------------------------------------


def _edge_state(
    s0: float, stability: str, touched: datetime, expires_at, flagged: bool, now: datetime
) -> tuple[float, bool]:
    """(current strength rounded to 2 places, dormant at ``now``): flagged, below 2.0, or
    expired (SPEC §5.2)."""
    strength = strength_at(s0, stability, touched, now)
    dormant = flagged or is_dormant(strength, stability=stability, expires_at=expires_at, now=now)
    return round(strength, 2), dormant


def _live(s0, stability, touched, expires_at, flagged, superseded_id, now) -> bool:
    if flagged or superseded_id is not None:
        return False
    return not _edge_state(s0, stability, touched, expires_at, False, now)[1]


def degrees(user, node_ids: list[int], now: datetime) -> dict[int, int]:
    """Live edges (at ``now``) touching each of ``node_ids``, in one query."""
    counts: Counter[int] = Counter()
    if not node_ids:
        return counts
    rows = (
        Edge.objects.for_user(user)
        .live()
        .filter(Q(source_id__in=node_ids) | Q(target_id__in=node_ids))
        .values_list(
            "source_id",
            "target_id",
            "strength_at_touch",
            "stability",
            "last_touched_at",
            "expires_at",
        )
    )
    wanted = set(node_ids)
    for source, target, s0, stability, touched, expires_at in rows:
        if _live(s0, stability, touched, expires_at, False, None, now):
            for end in (source, target):
                if end in wanted:
                    counts[end] += 1
    return counts


def edge_payload(edge: Edge, user, now: datetime) -> dict:
    """An edge as ``EdgeSerializer`` shows it (``source``/``target`` and ``snippet`` must be
    loaded with ``select_related``)."""
    strength, dormant = _edge_state(
        edge.strength_at_touch,
        edge.stability,
        edge.last_touched_at,
        edge.expires_at,
        edge.dormant,
        now,
    )
    snippet = edge.snippet
    return {
        "id": edge.pk,
        "source": {"id": edge.source_id, "name": edge.source.name},
        "target": {"id": edge.target_id, "name": edge.target.name},
        "relation": edge.relation,
        "strength": strength,
        "strength_at_touch": edge.strength_at_touch,
        "last_touched_at": edge.last_touched_at,
        "stability": edge.stability,
        "confidence": edge.confidence,
        "dormant": dormant,
        "superseded": edge.superseded_by_id is not None,
        "expires_at": edge.expires_at,
        "occurred": edge.occurred,
        "snippet": (
            {"text": snippet.text, "evidence": snippet.evidence}
            if snippet is not None and snippet.user_id == user.pk
            else None
        ),
    }


def _edges(user):
    return Edge.objects.for_user(user).select_related("source", "target", "snippet")


def node_detail(user, node: Node, now: datetime) -> dict:
    """``NodeDetailSerializer``'s dict for ``node``: its episodes, every edge touching it and
    the merges that kept it. A fixed number of queries."""
    episodes = (
        Episode.objects.for_user(user)
        .filter(node_episodes__node=node)
        .order_by(F("started_at").asc(nulls_last=True), "id")
        .values("id", "summary", "started_at", "ended_at", "conversation_id")
    )
    edges = _edges(user).filter(Q(source=node) | Q(target=node)).order_by("id")
    merges = MergeDecision.objects.for_user(user).filter(kept=node).order_by("-created_at", "-id")
    return {
        "id": node.pk,
        "name": node.name,
        "kind": node.kind,
        "aliases": list(node.aliases),
        "properties": node.properties,
        "confidence": node.confidence,
        "provisional": node.provisional,
        "is_self": node.is_self,
        "episodes": list(episodes),
        "edges": [edge_payload(edge, user, now) for edge in edges],
        "merges": [
            {
                "id": m.pk,
                "status": m.status,
                "rule": m.rule,
                "reason": m.reason,
                "created_at": m.created_at,
                "absorbed_name": _absorbed_name(m),
            }
            for m in merges
        ],
    }


def _absorbed_name(decision: MergeDecision) -> str:
    return (decision.absorbed or {}).get("name") or (decision.proposed or {}).get("name") or ""


def merge_payload(decision: MergeDecision) -> dict:
    kept = decision.kept
    return {
        "id": decision.pk,
        "status": decision.status,
        "kept": {"id": kept.pk, "name": kept.name} if kept is not None else None,
        "absorbed_name": _absorbed_name(decision),
        "rule": decision.rule,
        "created_at": decision.created_at,
    }


# --- query parameters -------------------------------------------------------------------------


class GraphQuerySerializer(serializers.Serializer):
    as_of = serializers.DateTimeField(
        required=False,
        help_text="Judge strength and dormancy at this instant (ISO 8601; default now).",
    )
    include_dormant = serializers.BooleanField(required=False, default=False)
    include_superseded = serializers.BooleanField(required=False, default=False)


class NodeQuerySerializer(serializers.Serializer):
    search = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=200,
        help_text="Case-insensitive substring of a name or alias.",
    )
    kind = serializers.ChoiceField(choices=NodeKind.choices, required=False)


class EdgeQuerySerializer(serializers.Serializer):
    node = serializers.IntegerField(required=False, help_text="Only edges touching this node.")
    include_dormant = serializers.BooleanField(required=False, default=False)
    include_superseded = serializers.BooleanField(required=False, default=False)


def _query(serializer_class, request) -> dict:
    query = serializer_class(data=request.query_params)
    query.is_valid(raise_exception=True)
    return query.validated_data


class InboxQuerySerializer(serializers.Serializer):
    state = serializers.ChoiceField(
        choices=[("pending", "pending"), ("settled", "settled")],
        required=False,
        default="pending",
        help_text="pending: questions waiting for your answer (default); settled: the ones "
        "you answered, most recent first.",
    )


# --- views ------------------------------------------------------------------------------------


class GraphView(ApiView):
    @extend_schema(
        tags=TAGS,
        parameters=[GraphQuerySerializer],
        responses={200: s.GraphSerializer, 400: ErrorSerializer},
    )
    def get(self, request):
        """The whole graph for the explorer: every node, and the edges live at ``as_of``
        (dormant and superseded ones on request). One query per table."""
        query = _query(GraphQuerySerializer, request)
        as_of = query.get("as_of") or timezone.now()
        user = request.user
        edges_qs = Edge.objects.for_user(user)
        if not query["include_superseded"]:
            edges_qs = edges_qs.filter(superseded_by__isnull=True)
        edges, degree = [], Counter()
        for (
            pk,
            source,
            target,
            relation,
            s0,
            touched,
            stability,
            confidence,
            flagged,
            superseded_id,
            expires_at,
        ) in edges_qs.order_by("id").values_list(
            "id",
            "source_id",
            "target_id",
            "relation",
            "strength_at_touch",
            "last_touched_at",
            "stability",
            "confidence",
            "dormant",
            "superseded_by_id",
            "expires_at",
        ):
            strength, dormant = _edge_state(s0, stability, touched, expires_at, flagged, as_of)
            superseded = superseded_id is not None
            if not dormant and not superseded:
                degree[source] += 1
                degree[target] += 1
            elif dormant and not query["include_dormant"]:
                continue
            edges.append(
                {
                    "id": pk,
                    "source": source,
                    "target": target,
                    "relation": relation,
                    "strength": strength,
                    "strength_at_touch": s0,
                    "last_touched_at": touched,
                    "stability": stability,
                    "confidence": confidence,
                    "dormant": dormant,
                    "superseded": superseded,
                    "expires_at": expires_at,
                }
            )
        nodes = [
            {
                "id": pk,
                "name": name,
                "kind": kind,
                "aliases": aliases,
                "degree": degree[pk],
                "is_self": is_self,
                "provisional": provisional,
            }
            for pk, name, kind, aliases, is_self, provisional in Node.objects.for_user(user)
            .order_by("id")
            .values_list("id", "name", "kind", "aliases", "is_self", "provisional")
        ]
        return Response({"as_of": as_of, "nodes": nodes, "edges": edges})


class NodeListView(ApiMixin, ListAPIView):
    serializer_class = s.NodeSummarySerializer

    def get_queryset(self):
        return Node.objects.for_user(self.request.user).order_by("normalised_name", "id")

    @extend_schema(
        tags=TAGS,
        parameters=[NodeQuerySerializer],
        responses={200: s.NodeSummarySerializer(many=True), 400: ErrorSerializer},
    )
    def get(self, request):
        """Your nodes by name, filtered by ``search`` (name or alias) and ``kind``."""
        query = _query(NodeQuerySerializer, request)
        nodes = self.get_queryset()
        if query.get("search"):
            term = query["search"].replace(_ALIAS_SEPARATOR, "")
            nodes = nodes.annotate(
                alias_text=Func(
                    F("aliases"),
                    Value(_ALIAS_SEPARATOR),
                    function="array_to_string",
                    output_field=CharField(),
                )
            ).filter(Q(name__icontains=term) | Q(alias_text__icontains=term))
        if query.get("kind"):
            nodes = nodes.filter(kind=query["kind"])
        rows = nodes.values("id", "name", "kind", "aliases", "is_self", "provisional")
        page = self.paginate_queryset(rows)
        counts = degrees(request.user, [row["id"] for row in page], timezone.now())
        for row in page:
            row["degree"] = counts[row["id"]]
        return self.get_paginated_response(self.get_serializer(page, many=True).data)


def _correction_failed(exc: corrections.CorrectionError) -> ValidationError:
    if exc.field:
        return ValidationError({exc.field: [str(exc)]})
    return ValidationError(str(exc))


class NodeDetailView(ApiMixin, GenericAPIView):
    lookup_url_kwarg = "node_id"
    serializer_class = s.NodeDetailSerializer

    def get_queryset(self):
        return Node.objects.for_user(self.request.user)

    @extend_schema(tags=TAGS, responses=s.NodeDetailSerializer)
    def get(self, request, node_id):
        """A node with its episodes, every edge touching it and the merges that kept it."""
        node = self.get_object()
        return Response(
            s.NodeDetailSerializer(node_detail(request.user, node, timezone.now())).data
        )

    @extend_schema(tags=TAGS, request=s.NodePatchSerializer, responses=s.NodeDetailSerializer)
    def patch(self, request, node_id):
        """Correct a node: rename (the old name stays an alias), change its kind, add or
        remove an alias. Several keys apply together or not at all."""
        node = self.get_object()
        patch = s.NodePatchSerializer(data=request.data)
        patch.is_valid(raise_exception=True)
        user, now = request.user, timezone.now()
        try:
            node = corrections.correct_node(
                user=user, node=node, changes=dict(patch.validated_data), now=now
            )
        except corrections.CorrectionError as exc:
            raise _correction_failed(exc) from None
        return Response(s.NodeDetailSerializer(node_detail(user, node, now)).data)

    @extend_schema(tags=TAGS, responses={204: None, 400: ErrorSerializer})
    def delete(self, request, node_id):
        """Forget a node and every memory touching it, for good. The node that stands for
        you cannot be forgotten (400)."""
        node = self.get_object()
        try:
            corrections.forget_node(user=request.user, node=node, now=timezone.now())
        except corrections.CorrectionError as exc:
            raise _correction_failed(exc) from None
        return Response(status=status.HTTP_204_NO_CONTENT)


class NodeMergeView(ApiMixin, GenericAPIView):
    lookup_url_kwarg = "node_id"
    serializer_class = s.MergeRequestSerializer

    def get_queryset(self):
        return Node.objects.for_user(self.request.user)

    @extend_schema(
        tags=TAGS, request=s.MergeRequestSerializer, responses={201: s.MergeDecisionSerializer}
    )
    def post(self, request, node_id):
        """Merge this node into ``into`` (same kind): its names become aliases there and its
        memories move over. Revertible with ``POST /memory/merges/{id}/revert/``."""
        node = self.get_object()
        body = s.MergeRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            decision = merge_nodes(
                user=request.user,
                keep=body.validated_data["into"],
                absorb=node,
                reason="merged by the user",
                by=request.user,
                now=timezone.now(),
            )
        except MergeError as exc:
            raise ValidationError({exc.field: [str(exc)]}) from None
        return Response(
            s.MergeDecisionSerializer(merge_payload(decision)).data, status=status.HTTP_201_CREATED
        )


class MergeRevertView(ApiMixin, GenericAPIView):
    lookup_url_kwarg = "merge_id"
    serializer_class = s.MergeDecisionSerializer

    def get_queryset(self):
        return MergeDecision.objects.for_user(self.request.user).select_related("kept")

    @extend_schema(
        tags=TAGS, request=None, responses={200: s.MergeDecisionSerializer, 409: ErrorSerializer}
    )
    def post(self, request, merge_id):
        """Undo a merge exactly (status becomes ``reverted``). 409 when it cannot be undone
        (already reverted, or a later merge must be reverted first)."""
        decision = self.get_object()
        try:
            decision = revert_merge(
                user=request.user, decision=decision, by=request.user, now=timezone.now()
            )
        except ValueError as exc:
            raise Conflict(str(exc)) from None
        decision = self.get_queryset().get(pk=decision.pk)
        return Response(s.MergeDecisionSerializer(merge_payload(decision)).data)


class InboxListView(ApiMixin, ListAPIView):
    serializer_class = s.InboxItemSerializer

    def get_queryset(self):
        return inbox.pending(self.request.user)

    @extend_schema(
        tags=TAGS,
        parameters=[InboxQuerySerializer],
        responses={200: s.InboxItemSerializer(many=True), 400: ErrorSerializer},
    )
    def get(self, request):
        """Your merge inbox: names the memory could not place on its own ("Is Matt the same
        person as Matt Patterson?"), newest first; ``count`` is the badge."""
        query = _query(InboxQuerySerializer, request)
        rows = inbox.settled(request.user) if query["state"] == "settled" else self.get_queryset()
        page = self.paginate_queryset(rows)
        data = s.InboxItemSerializer(inbox.summaries(request.user, page), many=True).data
        return self.get_paginated_response(data)


def _inbox_item(request, merge_id):
    try:
        return inbox.get_item(request.user, merge_id)
    except LookupError:
        raise NotFound("No such question.") from None


def _inbox_detail(request, decision) -> Response:
    return Response(s.InboxDetailSerializer(inbox.detail(request.user, decision)).data)


class InboxItemView(ApiView):
    @extend_schema(tags=TAGS, responses=s.InboxDetailSerializer)
    def get(self, request, merge_id):
        """One question with both neighbourhoods: a few memories touching the new name and
        each candidate, each with the sentence you said it in."""
        return _inbox_detail(request, _inbox_item(request, merge_id))


class InboxAnswerView(ApiView):
    @extend_schema(
        tags=TAGS,
        request=s.InboxAnswerSerializer,
        responses={200: s.InboxDetailSerializer, 409: ErrorSerializer},
    )
    def post(self, request, merge_id):
        """Answer a question: ``same`` merges the name into the candidate (``into``; optional
        with one candidate), ``different`` keeps them apart for good, ``unsure`` asks a
        moderator. 409 when it is already answered or no longer applies."""
        decision = _inbox_item(request, merge_id)
        body = s.InboxAnswerSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            decision = inbox.answer(
                user=request.user,
                decision=decision,
                answer=body.validated_data["answer"],
                into=body.validated_data.get("into"),
                now=timezone.now(),
            )
        except LookupError:
            raise NotFound("No such question.") from None
        except inbox.InboxError as exc:
            raise (
                ValidationError({exc.field: [str(exc)]}) if exc.field else ValidationError(str(exc))
            ) from None
        except inbox.InboxConflict as exc:
            raise Conflict(str(exc)) from None
        return _inbox_detail(request, _inbox_item(request, decision.pk))


class InboxUndoView(ApiView):
    @extend_schema(
        tags=TAGS, request=None, responses={200: s.InboxDetailSerializer, 409: ErrorSerializer}
    )
    def post(self, request, merge_id):
        """Take back your answer: a merge is undone exactly and the question is open again.
        409 when there is nothing to undo (unanswered, or a moderator settled it since)."""
        decision = _inbox_item(request, merge_id)
        try:
            decision = inbox.undo(user=request.user, decision=decision, now=timezone.now())
        except LookupError:
            raise NotFound("No such question.") from None
        except inbox.InboxConflict as exc:
            raise Conflict(str(exc)) from None
        return _inbox_detail(request, _inbox_item(request, decision.pk))


class EdgeListView(ApiMixin, ListAPIView):
    serializer_class = s.EdgeSerializer

    def get_queryset(self):
        return _edges(self.request.user).order_by("id")

    @extend_schema(
        tags=TAGS,
        parameters=[EdgeQuerySerializer],
        responses={200: s.EdgeSerializer(many=True), 400: ErrorSerializer},
    )
    def get(self, request):
        """Your memories, live ones by default; ``node`` narrows to one node's edges."""
        query = _query(EdgeQuerySerializer, request)
        user, now = request.user, timezone.now()
        edges = self.get_queryset()
        if "node" in query:
            if not Node.objects.for_user(user).filter(pk=query["node"]).exists():
                raise NotFound("No such node.")
            edges = edges.filter(Q(source_id=query["node"]) | Q(target_id=query["node"]))
        if not query["include_superseded"]:
            edges = edges.filter(superseded_by__isnull=True)
        if not query["include_dormant"]:
            sql, params = dormancy_sql(now, alias=f'"{Edge._meta.db_table}".')
            edges = (
                edges.filter(dormant=False)
                # Generated from constants; every value is a bound parameter.
                .annotate(
                    dormant_now=RawSQL(  # noqa: S611
                        sql,
                        params,
                        output_field=BooleanField(),
                    )
                )
                .filter(dormant_now=False)
            )
        page = self.paginate_queryset(edges)
        data = s.EdgeSerializer([edge_payload(e, user, now) for e in page], many=True).data
        return self.get_paginated_response(data)


class EdgeDetailView(ApiMixin, GenericAPIView):
    lookup_url_kwarg = "edge_id"
    serializer_class = s.EdgeSerializer

    def get_queryset(self):
        return _edges(self.request.user)

    @extend_schema(tags=TAGS, responses=s.EdgeSerializer)
    def get(self, request, edge_id):
        """One memory, with its ends and the words that justify it."""
        edge = self.get_object()
        return Response(s.EdgeSerializer(edge_payload(edge, request.user, timezone.now())).data)

    @extend_schema(tags=TAGS, responses={204: None})
    def delete(self, request, edge_id):
        """Forget a memory for good (with its snippets). A memory it had replaced becomes
        current again."""
        edge = self.get_object()
        corrections.forget_edge(user=request.user, edge=edge, now=timezone.now())
        return Response(status=status.HTTP_204_NO_CONTENT)


class EpisodeListView(ApiMixin, ListAPIView):
    serializer_class = s.EpisodeSerializer

    def get_queryset(self):
        return Episode.objects.for_user(self.request.user).order_by(
            F("started_at").desc(nulls_last=True), "-id"
        )

    @extend_schema(tags=TAGS)
    def get(self, request):
        """What each conversation taught the memory, newest first, with its extraction
        status."""
        return self.list(request)


class RecallView(ApiView):
    @extend_schema(
        tags=TAGS, request=s.RecallRequestSerializer, responses={200: s.ReadRecordSerializer}
    )
    def post(self, request):
        """What the assistant would recall for ``message`` right now (SPEC §6.4). Read-only:
        nothing is logged or reinforced."""
        body = s.RecallRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        record = recall(
            user=request.user, message=body.validated_data["message"], now=timezone.now()
        )
        return Response(s.ReadRecordSerializer(record.to_dict()).data)


class ExportView(ApiView):
    @extend_schema(tags=TAGS, responses=s.GraphDocumentSerializer)
    def get(self, request):
        """Your whole graph as ``pegasus-graph/1`` JSON (SPEC §6.1)."""
        return Response(export_graph(user=request.user))


class ImportView(ApiView):
    parser_classes = [ImportJSONParser]

    @extend_schema(
        tags=TAGS,
        request=s.GraphDocumentSerializer,
        responses={201: s.ImportSummarySerializer, 409: ErrorSerializer, 413: ErrorSerializer},
    )
    def post(self, request):
        """Add a ``pegasus-graph/1`` document to your graph, all or nothing. A node whose
        kind and name already exist in your graph rejects the whole file (409): merge graphs
        with the merge actions instead."""
        # parse_graph names anything PostgreSQL could not store (NUL, unpaired surrogates).
        try:
            summary = import_graph(user=request.user, data=request.data, now=timezone.now())
        except GraphConflictError as exc:
            raise Conflict(str(exc)) from None
        except GraphTooLargeError as exc:
            raise ApiError(status_code=413, code="payload_too_large", detail=str(exc)) from None
        except GraphFormatError as exc:
            raise ValidationError(str(exc)) from None
        return Response(
            s.ImportSummarySerializer(summary.to_dict()).data, status=status.HTTP_201_CREATED
        )


__all__ = [
    "EdgeDetailView",
    "EdgeListView",
    "EpisodeListView",
    "ExportView",
    "GraphView",
    "ImportView",
    "InboxAnswerView",
    "InboxItemView",
    "InboxListView",
    "InboxUndoView",
    "MergeRevertView",
    "NodeDetailView",
    "NodeListView",
    "NodeMergeView",
    "RecallView",
]
