"""Two structural rules a reviewer would otherwise have to remember (issue 22), read from the
source with ``ast`` (imports and queries written inside functions included):

* **Imports flow one way**: ``pegasus_site`` → ``accounts`` → ``chat`` → ``ops`` →
  ``memory`` → ``lib``. A package imports only packages to its right; ``memory`` reaches
  conversations and profiles through ``memory.ports``, never by importing ``chat`` or
  ``accounts``; ``lib`` imports no app.
* **The owner gate cannot be forgotten**: a query ``Model.objects.<method>(…)`` on an owned
  model (a ``user`` foreign key and the ``lib.owned.OwnedQuerySet`` manager, found in Django's
  app registry) goes through ``.for_user(user)`` or ``get_owned_or_404`` — outside a short
  allow-list of functions that work across users on purpose, each with its reason.

Migrations and the development-only ``bench`` app are not product code and are not read.
A failure lists every offending ``file:line``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from django.apps import apps

from lib.owned import OwnedQuerySet

ROOT = Path(__file__).resolve().parent.parent

# Left to right: each package may import only the packages after it.
LAYERS = ("pegasus_site", "accounts", "chat", "ops", "memory", "lib")

# Imports against the direction, each a (file or folder prefix, imported module) with why.
IMPORT_EXCEPTIONS = {
    ("lib/admin.py", "ops.audit"): (
        "ReadOnlyAdmin logs every moderator page it shows in the audit log, an ops model"
    ),
    ("ops/management/commands/serve.py", "pegasus_site.devdb"): (
        "`serve` is the project's launcher: it stops the embedded database devdb started"
    ),
}


# Owner gate: methods that create rows (the owner is named in each row) or write back rows
# already loaded through the gate (bulk_update takes instances, not ids).
WRITES = {"create", "bulk_create", "bulk_update"}

# Functions allowed to query owned models without the gate: (file or folder prefix,
# function) → why. Keep it short; every entry is a place that works across users on purpose.
GATE_EXCEPTIONS = {
    ("chat/memory_port.py", "ChatConversations.owner_id"): (
        "whose conversation an operator's `manage.py extract --conversation ID` names"
    ),
    (
        "chat/services/conversations.py",
        "close_idle_conversations",
    ): "the idle sweep ends every user's",
    ("chat/services/turn.py", "begin_turn"): (
        "updates the conversation just loaded through get_owned_or_404, by its pk"
    ),
    ("chat/services/turn.py", "_store_reply"): (
        "updates the conversation of a turn loaded through the gate, by its pk"
    ),
    ("memory/services/jobs.py", "_claim"): "the task runs an episode by id, whoever owns it",
    ("memory/services/jobs.py", "extract_episode"): (
        "the task runs an episode by id, whoever owns it"
    ),
    ("memory/services/jobs.py", "_fail_if_abandoned"): "the same task, by episode id",
    ("memory/services/jobs.py", "_extract_and_write"): "the same task, by episode id",
    ("memory/services/decay.py", "users_with_edges"): "the nightly decay visits every user",
    ("memory/services/keys.py", "reembed"): "re-embedding after a model change: every user",
    ("memory/services/sentences.py", "reembed_sentences"): (
        "re-embedding after a model change: one user or every user"
    ),
    ("memory/services/corrections", "erase_expired_history"): (
        "the retention sweep erases every user's expired history"
    ),
    ("memory/services/queues.py", "index_summary"): (
        "the admin index counts every user's queue (staff only)"
    ),
}


def _product_files() -> Iterator[Path]:
    for package in LAYERS:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).parts
            if "migrations" in parts or "bench" in parts or path.name.startswith("bench_"):
                continue
            yield path


def _relative(path: Path, root: Path = ROOT) -> str:
    return path.relative_to(root).as_posix()


def _matches(relative: str, prefix: str) -> bool:
    return (
        relative == prefix
        or (prefix.endswith("/") and relative.startswith(prefix))
        or (not prefix.endswith((".py", "/")) and relative.startswith(prefix))
    )


def _imports(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """Every absolute import in the module, at any depth: (line, module)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.lineno, node.module


def _excused(relative: str, module: str, table: dict) -> bool:
    return any(
        _matches(relative, prefix) and (module == target or module.startswith(target + "."))
        for prefix, target in table
    )


def import_violations(files, root: Path = ROOT) -> list[str]:
    """``file:line imports module`` for each import against ``LAYERS``' direction."""
    found = []
    for path in files:
        relative = _relative(path, root)
        own = relative.split("/")[0]
        allowed = set(LAYERS[LAYERS.index(own) + 1 :])
        for line, module in _imports(ast.parse(path.read_text(), filename=relative)):
            top = module.split(".")[0]
            if top not in LAYERS or top == own or top in allowed:
                continue
            if _excused(relative, module, IMPORT_EXCEPTIONS):
                continue
            found.append(f"{relative}:{line} imports {module} ({own} may import only {allowed})")
    return found


def owned_model_names() -> set[str]:
    """Names of the models with a ``user`` relation whose manager is the owner gate's."""
    names = set()
    for model in apps.get_models():
        fields = {f.name: f for f in model._meta.get_fields()}
        user = fields.get("user")
        if (
            user is not None
            and user.is_relation
            and issubclass(model._default_manager._queryset_class, OwnedQuerySet)
        ):
            names.add(model.__name__)
    return names


class _GateVisitor(ast.NodeVisitor):
    def __init__(self, owned: set[str]):
        self.owned = owned
        self.scope: list[str] = []
        self.parents: dict[ast.AST, ast.AST] = {}
        self.gated: set[ast.AST] = set()  # first arguments of get_owned_or_404(...)
        self.found: list[tuple[int, str, str]] = []  # (line, function, query)

    def run(self, tree: ast.AST) -> list[tuple[int, str, str]]:
        for parent in ast.walk(tree):
            for child in ast.iter_child_nodes(parent):
                self.parents[child] = parent
            if isinstance(parent, ast.Call) and _name(parent.func) == "get_owned_or_404":
                if parent.args:
                    self.gated.update(ast.walk(parent.args[0]))
        self.visit(tree)
        return self.found

    def _scoped(self, node):
        self.scope.append(node.name)
        self.generic_visit(node)
        self.scope.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _scoped

    def visit_Attribute(self, node: ast.Attribute):
        manager = node.value
        if (
            isinstance(manager, ast.Attribute)
            and manager.attr == "objects"
            and _name(manager.value) in self.owned
            and node.attr not in WRITES
            and node.attr != "for_user"
            and node not in self.gated
            and "for_user" not in self._chain(node)
        ):
            query = f"{_name(manager.value)}.objects.{node.attr}"
            self.found.append((node.lineno, ".".join(self.scope), query))
        self.generic_visit(node)

    def _chain(self, node: ast.AST) -> set[str]:
        """The attribute names called on the expression ``node`` starts (``.a().b()``)."""
        names = set()
        while True:
            parent = self.parents.get(node)
            if isinstance(parent, ast.Attribute) and parent.value is node:
                names.add(parent.attr)
            elif not (isinstance(parent, ast.Call) and parent.func is node):
                return names
            node = parent


def _name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def gate_violations(files, owned: set[str], root: Path = ROOT) -> list[str]:
    """``file:line in function: query`` for each query of an owned model around the gate."""
    found = []
    for path in files:
        relative = _relative(path, root)
        tree = ast.parse(path.read_text(), filename=relative)
        for line, function, query in _GateVisitor(owned).run(tree):
            if any(
                _matches(relative, prefix) and function == allowed
                for prefix, allowed in GATE_EXCEPTIONS
            ):
                continue
            found.append(f"{relative}:{line} in {function or '<module>'}: {query} without for_user")
    return found


def test_imports_flow_one_way():
    violations = import_violations(_product_files())
    assert not violations, "imports against the direction:\n" + "\n".join(violations)


def test_memory_imports_neither_chat_nor_accounts():
    files = [p for p in _product_files() if _relative(p).startswith("memory/")]
    offending = [
        f"{_relative(path)}:{line} imports {module}"
        for path in files
        for line, module in _imports(ast.parse(path.read_text()))
        if module.split(".")[0] in {"chat", "accounts"}
    ]
    assert not offending, "\n".join(offending)


def test_owned_models_are_found_in_the_app_registry():
    owned = owned_model_names()
    # A sample the rule must cover (the rule itself is derived, not this list).
    assert {"Node", "Edge", "Snippet", "Episode", "Conversation", "Message"} <= owned
    assert "Profile" not in owned  # a user relation without the owner manager


def test_owned_models_are_queried_through_the_gate():
    violations = gate_violations(_product_files(), owned_model_names())
    assert not violations, "queries around the owner gate:\n" + "\n".join(violations)


def test_allow_listed_functions_exist():
    """An allow-list entry whose function is gone would silently excuse a future one."""
    functions = {}
    for path in _product_files():
        relative = _relative(path)
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                functions.setdefault(relative, set()).add(node.name)
    stale = [
        f"{prefix}: {function}"
        for prefix, function in GATE_EXCEPTIONS
        if not any(
            _matches(relative, prefix) and function.split(".")[-1] in names
            for relative, names in functions.items()
        )
    ]
    assert not stale, "allow-listed functions that no longer exist:\n" + "\n".join(stale)


def _write(root: Path, relative: str, text: str) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_an_import_against_the_direction_is_reported(tmp_path):
    """The rule is not vacuous: a memory module importing chat inside a function is found,
    and one importing lib is not."""
    bad = _write(
        tmp_path, "memory/services/x.py", "def f():\n    from chat.models import Message\n"
    )
    good = _write(tmp_path, "memory/services/y.py", "from lib.owned import get_owned_or_404\n")
    found = import_violations([bad, good], root=tmp_path)
    assert found == ["memory/services/x.py:2 imports chat.models (memory may import only {'lib'})"]


def test_a_query_around_the_gate_is_reported(tmp_path):
    """The rule is not vacuous: ``Node.objects.filter(pk=…)`` is found; the gated forms and
    creates are not."""
    source = (
        "def leak(pk):\n"
        "    return Node.objects.filter(pk=pk)\n"
        "def gated(user, pk):\n"
        "    a = Node.objects.for_user(user).filter(pk=pk)\n"
        "    b = get_owned_or_404(Node.objects.all(), user, pk=pk)\n"
        "    return a, b, Node.objects.create(user=user, name='x')\n"
    )
    path = _write(tmp_path, "memory/services/z.py", source)
    found = gate_violations([path], {"Node"}, root=tmp_path)
    assert found == ["memory/services/z.py:2 in leak: Node.objects.filter without for_user"]
