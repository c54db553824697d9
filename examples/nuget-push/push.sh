#!/bin/sh
# Builds a tiny NuGet package and pushes it to a Forgelet project's feed with Debian's `nuget`
# (NuGet.exe 2.8.7 under mono; apt-get install -y nuget mono-runtime), then installs it back.
#
#   sh examples/nuget-push/push.sh http://127.0.0.1:8080/api/v4/projects/42/packages/nuget/v2 glpat-…
#
# $1: the project's v2 feed (NuGet 2.x speaks only v2; NuGet 3+ and dotnet take
#     …/packages/nuget/index.json instead, with the same commands)
# $2: the API key: a personal, project or group access token of a Developer of the project
set -eu

SOURCE=${1:?usage: push.sh <feed source URL> <api key>}
API_KEY=${2:?usage: push.sh <feed source URL> <api key>}
HERE=$(cd "$(dirname "$0")" && pwd)

# Work in a scratch directory so nothing is left in the repository.
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cp "$HERE/Hello.Forgelet.nuspec" "$HERE/hello.txt" "$WORK/"
cd "$WORK"

# 1. Build Hello.Forgelet.1.0.0.nupkg from the .nuspec.
nuget pack Hello.Forgelet.nuspec -NonInteractive

# 2. Push it. NuGet sends the key as X-NuGet-ApiKey; Forgelet accepts any token there.
nuget push Hello.Forgelet.1.0.0.nupkg -Source "$SOURCE" -ApiKey "$API_KEY" -NonInteractive

# 3. Install it back from the feed. NuGet 2.x sends credentials only after a challenge, so this
#    works on public projects; give -Version (a v2 feed cannot tell it the latest one).
nuget install Hello.Forgelet -Version 1.0.0 -Source "$SOURCE" -OutputDirectory installed -NoCache -NonInteractive
cat installed/Hello.Forgelet.1.0.0/content/hello.txt
