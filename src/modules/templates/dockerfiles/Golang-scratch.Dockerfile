# Builds a static Go binary and ships it alone in an empty image, with the CA certificates it needs
# to speak TLS.
FROM golang:alpine AS build

RUN apk add --no-cache ca-certificates
WORKDIR /src
COPY go.mod go.sum* ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/app .

FROM scratch
COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/
COPY --from=build /out/app /app

# EXPOSE 8080
ENTRYPOINT ["/app"]
