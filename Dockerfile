# One image for the API and every worker (terraform/run.tf picks the entry point per service):
#   API      frontdoor serve                      (the default CMD; listens on $HOST:$PORT)
#   workers  functions-framework --source=frontdoor/functions.py --target=generate_page|
#            generation_dead_letter|ingest_signals --signature-type=cloudevent
# Build: docker build -t REGION-docker.pkg.dev/PROJECT/frontdoor/frontdoor:TAG .
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app

# The project with its pinned dependencies (pyproject.toml), installed as a package.
COPY pyproject.toml README.md ./
COPY frontdoor/ frontdoor/
COPY api/ api/
COPY backends/ backends/
COPY domain/ domain/
COPY gate/ gate/
COPY renderers/ renderers/
COPY schemas/ schemas/
COPY services/ services/
COPY workers/ workers/
# pip byte-compiles what it installs: a start reads bytecode (bench/bench_startup.py does the same).
RUN pip install . && pip check

# Company records, brand rules, logos and docs: data read at start, not a package.
COPY content/ content/

RUN useradd --system --uid 10001 --user-group --home-dir /app --no-create-home frontdoor \
    && mkdir /data && chown frontdoor:frontdoor /data

# Cloud Run sets PORT; every other setting comes from the service's environment (run.tf).
# DATA_DIR is only used on embedded defaults (`docker run -p 8080:8080 IMAGE`).
ENV HOST=0.0.0.0 \
    PORT=8080 \
    MALLOC_ARENA_MAX=2 \
    CONTENT_DIR=/app/content \
    DATA_DIR=/data

USER 10001:10001
EXPOSE 8080

CMD ["frontdoor", "serve"]
