# The one hyscribe binary, with Debian's ffmpeg to decode MP3, run as a
# non-root user.
#   docker build -t hyscribe .
# deploy/compose.yaml and deploy/k8s use it; see deploy/README.md.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
# The Go client is its own module, which go.mod replaces with ./client.
COPY client/go.mod client/
RUN go mod download
COPY . .
# Pure Go (SQLite is modernc.org/sqlite): a static binary.
# `hyscribe version` prints these (the build context has no .git):
#   docker build --build-arg VERSION=v1.2.3 --build-arg COMMIT=$(git rev-parse HEAD) .
ARG VERSION=""
ARG COMMIT=""
RUN CGO_ENABLED=0 go build -trimpath \
      -ldflags="-s -w -X github.com/hyscribe/hyscribe/cmd/hyscribe/cli.version=${VERSION} -X github.com/hyscribe/hyscribe/cmd/hyscribe/cli.commit=${COMMIT}" \
      -o /out/hyscribe ./cmd/hyscribe \
 && mkdir -p /out/data

FROM debian:bookworm-slim
# FFmpeg decodes the uploads (docs/decisions.md, "MP3 decoder"): the worker
# refuses to start without it. nonroot is uid and gid 65532, as in the
# distroless image this was before and as deploy/k8s runs it.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ffmpeg \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --gid 65532 nonroot \
 && useradd --uid 65532 --gid 65532 --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin nonroot
COPY --from=build /out/hyscribe /usr/local/bin/hyscribe
# Embedded mode keeps its data here, workers their scratch files; production
# keeps the rest in Postgres, Kafka and S3. An empty directory is copied in,
# owned by nonroot.
COPY --from=build --chown=nonroot:nonroot /out/data /var/lib/hyscribe
WORKDIR /var/lib/hyscribe
ENV HYSCRIBE_DATA_DIR=/var/lib/hyscribe \
    HYSCRIBE_HTTP_ADDR=0.0.0.0:8080
EXPOSE 8080
USER nonroot:nonroot
ENTRYPOINT ["/usr/local/bin/hyscribe"]
CMD ["serve"]
