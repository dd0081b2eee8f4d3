"""Read-only browsing of every user's graph: nodes, edges, snippets and corrections."""

from __future__ import annotations

from django.contrib import admin
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join

from lib.admin import USER_FILTER, ReadOnlyAdmin, admin_link
from memory.admin.filters import LiveEdgeFilter
from memory.admin.helpers import _short, json_column
from memory.core.decay import strength_at
from memory.models import Correction, Edge, Node, Snippet
from memory.services.neighbourhood import neighbourhoods


@admin.register(Node)
class NodeAdmin(ReadOnlyAdmin):
    list_display = (
        "name",
        "kind",
        "user",
        "alias_list",
        "confidence",
        "provisional",
        "is_self",
        "updated_at",
    )
    list_filter = (USER_FILTER, "kind", "provisional", "is_self")
    search_fields = ("name", "normalised_name", "user__username")
    list_select_related = ("user",)
    ordering = ("user", "kind", "normalised_name")
    fields = (
        "user",
        "kind",
        "name",
        "normalised_name",
        "aliases",
        "properties_json",
        "confidence",
        "provisional",
        "is_self",
        "created_at",
        "updated_at",
        "related",
        "neighbourhood",
    )
    readonly_fields = fields

    @admin.display(description="aliases")
    def alias_list(self, obj):
        return _short(", ".join(obj.aliases), 60) or "—"

    properties_json = json_column("properties")

    @admin.display(description="related")
    def related(self, obj):
        edges = reverse("admin:memory_edge_changelist")
        decisions = reverse("admin:memory_mergedecision_changelist")
        return format_html_join(
            " · ",
            '<a href="{}">{}</a>',
            [
                (f"{edges}?source__id__exact={obj.pk}", "outgoing edges"),
                (f"{edges}?target__id__exact={obj.pk}", "incoming edges"),
                (f"{decisions}?kept__id__exact={obj.pk}", "merge decisions that kept it"),
            ],
        )

    @admin.display(description="2-hop neighbourhood")
    def neighbourhood(self, obj):
        lines, truncated = neighbourhoods(obj.user_id, [obj.pk])[obj.pk]
        if not lines:
            return "—"
        items = format_html_join(
            "",
            "<li>{}{}{}</li>",
            [
                (
                    e.line,
                    " (2 hops)" if e.hop == 2 else "",
                    format_html(": “{}”", e.snippet) if e.snippet else "",
                )
                for e in lines
            ],
        )
        return format_html("<ul>{}</ul>{}", items, "…" if truncated else "")


@admin.register(Edge)
class EdgeAdmin(ReadOnlyAdmin):
    list_display = (
        "claim",
        "user",
        "strength_at_touch",
        "current_strength",
        "stability",
        "cardinality",
        "dormant",
        "superseded",
        "last_touched_at",
    )
    list_filter = (USER_FILTER, LiveEdgeFilter, "stability", "cardinality")
    search_fields = ("relation", "source__name", "target__name", "user__username")
    list_select_related = ("user", "source", "target")
    ordering = ("-last_touched_at", "-id")
    fields = (
        "user",
        "source",
        "relation",
        "target",
        "strength_at_touch",
        "current_strength",
        *Edge.STATE_FIELDS,
        "superseded_by",
        "snippet_text",
        "created_at",
    )
    readonly_fields = fields

    @admin.display(description="edge", ordering="relation")
    def claim(self, obj):
        return f"{obj.source.name} -[{obj.relation}]-> {obj.target.name}"

    @admin.display(description="strength now")
    def current_strength(self, obj):
        return round(
            strength_at(obj.strength_at_touch, obj.stability, obj.last_touched_at, timezone.now()),
            1,
        )

    @admin.display(description="superseded", boolean=True)
    def superseded(self, obj):
        return obj.superseded_by_id is not None

    @admin.display(description="current snippet")
    def snippet_text(self, obj):
        return obj.snippet.text if obj.snippet_id else "—"


@admin.register(Snippet)
class SnippetAdmin(ReadOnlyAdmin):
    list_display = ("short_text", "edge_claim", "user", "confidence", "episode", "created_at")
    list_filter = (USER_FILTER,)
    search_fields = ("text", "evidence", "user__username")
    list_select_related = ("user", "edge__source", "edge__target", "episode")
    ordering = ("-created_at", "-id")
    fields = (
        "user",
        "edge_link",
        "text",
        "evidence",
        "confidence",
        "episode",
        "message",
        "created_at",
    )
    readonly_fields = fields

    @admin.display(description="text")
    def short_text(self, obj):
        return _short(obj.text, 80)

    @admin.display(description="edge")
    def edge_claim(self, obj):
        edge = obj.edge
        return f"{edge.source.name} -[{edge.relation}]-> {edge.target.name}"

    @admin.display(description="edge")
    def edge_link(self, obj):
        return admin_link(obj.edge, self.edge_claim(obj))


@admin.register(Correction)
class CorrectionAdmin(ReadOnlyAdmin):
    """Corrections users made to their own memory (explorer, API), as history."""

    list_display = ("action", "target_type", "target_id", "user", "created_at")
    list_filter = (USER_FILTER, "action", "target_type")
    search_fields = ("user__username",)
    list_select_related = ("user",)
    fields = (
        "user",
        "action",
        "target_type",
        "target_id",
        "before_json",
        "after_json",
        "created_at",
    )
    readonly_fields = fields

    before_json = json_column("before")
    after_json = json_column("after")
