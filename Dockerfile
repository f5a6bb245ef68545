# The one hyscribe binary in a distroless image (no shell, non-root).
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

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/hyscribe /usr/local/bin/hyscribe
# Embedded mode keeps its data here, workers their scratch files; production
# keeps the rest in Postgres, Kafka and S3. Distroless has no shell to
# mkdir/chown, so an empty directory is copied in, owned by nonroot.
COPY --from=build --chown=nonroot:nonroot /out/data /var/lib/hyscribe
WORKDIR /var/lib/hyscribe
ENV HYSCRIBE_DATA_DIR=/var/lib/hyscribe \
    HYSCRIBE_HTTP_ADDR=0.0.0.0:8080
EXPOSE 8080
USER nonroot:nonroot
ENTRYPOINT ["/usr/local/bin/hyscribe"]
CMD ["serve"]
