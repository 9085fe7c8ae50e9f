# Builds a Go module on Alpine Linux and runs the result in a small Alpine image.
FROM golang:alpine AS build

WORKDIR /src
COPY go.mod go.sum* ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -o /out/app .

FROM alpine:latest
RUN apk add --no-cache ca-certificates
COPY --from=build /out/app /usr/local/bin/app

# EXPOSE 8080
CMD ["app"]
