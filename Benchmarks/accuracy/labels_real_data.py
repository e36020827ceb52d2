"""The pinned set of labels_real.py: real recordings that install offline from Debian packages
(bookworm), one row per file, and the AudioSet display names (exactly as in
yamnet_class_map.csv) that count as naming each class. No audio is committed: the files are
installed at evaluation time (labels_real.py --fetch).

Files were picked from an inventory of the archive (real_or_synth = real, judged from the
packages' credits, file names and spectrograms). Two exceptions, kept because their class has
no plain "real" file: the sirens (scorched3d policecar/firetruck, "real-likely": they look like
real wail/yelp recordings but carry no credit) and the second telephone (linphone
oldphone-mono, "real-likely"); `status` marks them. Alarm has only one real recording.
Same-recording duplicates are left out (frozen-bubble applause.ogg = lmms applause01.ogg,
monsterz applause.wav = LibreOffice gallery applause.wav).

A class's acceptable names are its own AudioSet classes, their AudioSet children, and the
parents up the ontology a listener would still accept (Animal for a dog, Alarm for a siren or
a telephone, Vehicle/Car for a car horn).
"""

# (class, Debian package, path, sha256, licence, status)
FILES = [
    ("alarm", "sound-theme-freedesktop", "/usr/share/sounds/freedesktop/stereo/alarm-clock-elapsed.oga",
     "c28b4e0463eb3f19a3352049991c919cf8755e3f301f56a6276f5a81df472595", "CC-BY-SA-3.0", "real"),

    ("applause", "monsterz-data", "/usr/share/games/monsterz/sound/applause.wav",
     "1ca3c66099beb87b1e9878a610dacb575691a9c5f29b43a9940d23cb3f7988b9", "LGPL-2.1", "real"),
    ("applause", "lmms-common", "/usr/share/lmms/samples/misc/applause01.ogg",
     "88b346c79eb80add52e2eabce3dc6de650f2212523200ae169932f532199cbcb", "GPL-2+", "real"),
    ("applause", "dustracing2d-data", "/usr/share/games/dustracing2d/sounds/cheering.ogg",
     "36645c2bc7f1db4ed0dd71ff979846d3a31bb855763a20095b1c6a3cdae9a569", "GPL-3+", "real"),
    ("applause", "qabcs-data", "/usr/share/qabcs/abcs/all/sounds/cheering.ogg",
     "f7d0966bd5939cb37257030d9bf85c6dca3f9c57bef9924628b3ea216e91feb1", "GPL-3+", "real"),

    ("car horn", "sumo-tools", "/usr/share/sumo/tools/game/sounds/car_horn2.wav",
     "0589f22d30e2ff9720859d16f7902737a3a7c5dfd2ace3c21efc054046a9b291", "CC0-1.0", "real"),
    ("car horn", "sumo-tools", "/usr/share/sumo/tools/game/sounds/car_horn3.wav",
     "a17ffba1f884bf3f66112d559ed9b0533f303148d4017b1c12ef0c7e5275a722", "CC0-1.0", "real"),
    ("car horn", "scorched3d-data", "/usr/share/games/scorched3d/data/globalmods/apoc/data/wav/misc/carhorn1.wav",
     "ee191a257847265a14bd0cec933f2563eb92a9307351460745cdd1dc11cd3631", "CC-BY-SA-3.0", "real"),
    ("car horn", "scorched3d-data", "/usr/share/games/scorched3d/data/globalmods/apoc/data/wav/misc/carhorn5.wav",
     "fda73802d7fafadb802e34bd862d2a345db2038d46411570e4eaa636d13d57d0", "CC-BY-SA-3.0", "real"),

    ("cough", "scratch", "/usr/share/scratch/Media/Sounds/Human/Cough-male.wav",
     "44c01df16d3a7ddf193faef52d02a3022d2b32ddb7eaf4c2b67a7bedadcb671d", "CC-BY-SA-3.0", "real"),
    ("cough", "scratch", "/usr/share/scratch/Media/Sounds/Human/Cough-female.wav",
     "4816121b99099ae3e47b0faf812f1363366fcb7d5aabf62e6e86098af1b2116b", "CC-BY-SA-3.0", "real"),

    ("dog", "lugaru-data", "/usr/share/games/lugaru/Sounds/Bark.ogg",
     "81c5837a6ed00325d7e8c19ecb476682b5808381d23a419749ac2376e2bb5c7a", "CC-BY-SA-3.0", "real"),
    ("dog", "lugaru-data", "/usr/share/games/lugaru/Sounds/Bark3.ogg",
     "ed4140baeb10574e191f3a4a4fcb69e217a4c910ff0e190ea4c46ca487b92626", "CC-BY-SA-3.0", "real"),
    ("dog", "scorched3d-data", "/usr/share/games/scorched3d/data/globalmods/apoc/data/wav/misc/dog2.wav",
     "adb7d2f81a77d84533cd00f07f90c5c5787f4430f6488af3a698bf047059f6bd", "CC-BY-SA-3.0", "real"),
    ("dog", "qabcs-data", "/usr/share/qabcs/abcs/all/noises/dog.ogg",
     "e05e7683d82e7051e1023a071bd7d96c239ee91c7ca287f120d824e98ad85842", "GPL-3+", "real"),

    ("footsteps", "scratch", "/usr/share/scratch/Media/Sounds/Human/Footsteps-1.wav",
     "2f3d59f709634bb6ab04a7b890598e2c606b8907b09d30deeb856525b60ac205", "CC-BY-SA-3.0", "real"),
    ("footsteps", "scratch", "/usr/share/scratch/Media/Sounds/Human/Footsteps-2.mp3",
     "a154dabeca0a632ac6d6e3ad12cb8f79659ef8d9bdbd8d58d287234dfaaa8954", "CC-BY-SA-3.0", "real"),
    ("footsteps", "lugaru-data", "/usr/share/games/lugaru/Sounds/FootStepStone1.ogg",
     "dea3368b63a504b8f09eb158869c8ca6b4f146d567be29c50693de8d104c1cd5", "CC-BY-SA-3.0", "real"),
    ("footsteps", "minetest-data", "/usr/share/games/minetest/games/minetest_game/mods/default/sounds/default_gravel_footstep.1.ogg",
     "92c657bf7e5344871eb34d5ffaf34655e72e90f37246fcd7efeff3ed5a6c594d", "CC-BY-SA-3.0", "real"),

    ("glass", "brainparty-data", "/usr/share/games/brainparty/glass_break.wav",
     "89f5a2e3074bb1ecfa2951697f7cf1fc433466c24bd37eeb32fae8cc75209842", "GPL-3+", "real"),
    ("glass", "minetest-data", "/usr/share/games/minetest/games/minetest_game/mods/default/sounds/default_break_glass.1.ogg",
     "fce70466ad16acccc7719b0b1030ced883c0fd77ff978c27b56ba0a7dce1a8a3", "CC-BY-3.0", "real"),
    ("glass", "minetest-data", "/usr/share/games/minetest/games/minetest_game/mods/default/sounds/default_break_glass.2.ogg",
     "9b8bd9ec4435c830f501acd6bfec8eb3c97de058ba935ff694885642bc79638d", "CC-BY-3.0", "real"),
    ("glass", "minetest-data", "/usr/share/games/minetest/games/minetest_game/mods/default/sounds/default_break_glass.3.ogg",
     "dea3a98e822bbbf8d5b499cee0c39629a23239f0997694568875dc2e20401067", "CC-BY-3.0", "real"),

    ("knock", "orage-data", "/usr/share/orage/sounds/Knock.wav",
     "472e1d412c0ea786bbbd770ecc27e6d542f97fc3dd12a049f0d525dafa8abd67", "GPL-2+", "real"),
    ("knock", "sonic-pi-samples", "/usr/share/sonic-pi/samples/perc_door.flac",
     "923c36d45cd67a053976602163020b32fc499f3c126c66bca790b9aa2d9e7003", "CC0-1.0", "real"),

    ("music", "sonic-pi-samples", "/usr/share/sonic-pi/samples/loop_amen_full.flac",
     "87ba57c489244e10436c0ea2f500625c95e58fbedb6e38db2639ed72eb1da1b7", "CC0-1.0", "real"),
    ("music", "sonic-pi-samples", "/usr/share/sonic-pi/samples/guit_em9.flac",
     "e6dbbdc5aef03fada9cbd84d9ef000472c6954db9badcf5721969c515d46c2f1", "CC0-1.0", "real"),
    ("music", "sonic-pi-samples", "/usr/share/sonic-pi/samples/ambi_piano.flac",
     "e6cd0efe8bd02f67beb76e2a930c9ff70c27712fa8829f03c2ae71362f88fe77", "CC0-1.0", "real"),
    ("music", "lmms-common", "/usr/share/lmms/samples/latin/latin_guitar01.ogg",
     "a5ce6528ef80e4c00a2c2db412c4bb843dc4a6a1d15327881ba1db1a963cd487", "GPL-2+", "real"),
    ("music", "scratch", "/usr/share/scratch/Media/Sounds/Music Loops/GuitarChords1.mp3",
     "a0f66a0dcb736c06954d0871ba0d7a849099296ab9d98ed1b75858326a4ff5a3", "CC-BY-SA-3.0", "real"),
    ("music", "qabcs-data", "/usr/share/qabcs/abcs/all/noises/grand_piano.ogg",
     "2fd73dad1f8e455cacd8b1bc5ab446b11707af53c23bd8d57d76fd4a9f747124", "GPL-3+", "real"),

    ("siren", "scorched3d-data", "/usr/share/games/scorched3d/data/globalmods/apoc/data/wav/misc/policecar.wav",
     "51639ee94ebeb0b95dd60d1437d14259540244b5205ae910a84d1d3791f33084", "CC-BY-SA-3.0", "real-likely"),
    ("siren", "scorched3d-data", "/usr/share/games/scorched3d/data/globalmods/apoc/data/wav/misc/firetruck.wav",
     "33eb57e0549723003c8a749bfa83301bbfb7371770740baffc33300a94da54a6", "CC-BY-SA-3.0", "real-likely"),

    ("speech", "codec2-examples", "/usr/share/codec2/raw/speech_orig_16k.wav",
     "594c291468dfb3c0974ee204cf1ddd7925a87c1dbdcd905fcd23a43942b660f7", "LGPL-2.1", "real"),
    ("speech", "linphone-common", "/usr/share/sounds/linphone/hello16000.wav",
     "976fb480d0d527ab28f347e790f53062cce4dffe6388b0a39dfb9e5fa92bcbd6", "GPL-3+", "real"),
    ("speech", "codec2-examples", "/usr/share/codec2/wav/vk5qi.wav",
     "4ce2a31b4165a4becfa0bfa50cb256f6a80e54dbfb51c3bfb3e97e365056888b", "LGPL-2.1", "real"),
    ("speech", "asterisk-core-sounds-en-wav", "/usr/share/asterisk/sounds/en_US_f_Allison/call-forwarding.wav",
     "d5b2362ca144d87b6ab4a2087bc09abc1c3a5787b9f991614b2bab75ac8ed052", "CC-BY-SA-3.0", "real"),
    ("speech", "alsa-utils", "/usr/share/sounds/alsa/Front_Center.wav",
     "0d61518bcd3f13b0c709a5298e939caf698b80d31d71d50475365ee0e5536cc9", "GPL-2+", "real"),

    ("telephone", "libjs-jsxc", "/usr/share/libjs-jsxc/sound/Rotary-Phone6.mp3",
     "87cf51a2fba473bf201159ec851d8ce7a4a57e21478ff56b28e188094753a1cb", "public-domain", "real"),
    ("telephone", "linphone-common", "/usr/share/sounds/linphone/rings/oldphone-mono.wav",
     "2d63595d675782140cfde5de100ddde4ed5e77b6163c60eda46bc7cfbecd1df6", "GPL-3+", "real-likely"),

    ("rain/water", "scorched3d-data", "/usr/share/games/scorched3d/data/globalmods/none/data/wav/misc/oceanwaves.wav",
     "cd4dbdacfd5959add10f804d829fdfeb666ab3b43fe2c7d045291370793540ca", "GPL-2+", "real"),
    ("rain/water", "scratch", "/usr/share/scratch/Media/Sounds/Effects/WaterRunning.mp3",
     "b00591d9fe1e4bf0b9537094f04ff6ccf869545c7451e7ce4629553c163f2cd4", "CC-BY-SA-3.0", "real"),
    ("rain/water", "scratch", "/usr/share/scratch/Media/Sounds/Effects/Bubbles.wav",
     "f0da83b2d33e6732c5f4eba59e6247868bb6da9ba055c80a02d06dabf03b8829", "CC-BY-SA-3.0", "real"),
    ("rain/water", "minetest-data", "/usr/share/games/minetest/games/minetest_game/mods/env_sounds/sounds/env_sounds_water.1.ogg",
     "d9cb23c31187446dd64222f602283a32176e9ed2a1561ac26c164437446bf39f", "CC0-1.0", "real"),
]

# The talker of the "beside a talker" scenes, and the one used when the evaluated file is it.
TALKER = "/usr/share/codec2/raw/speech_orig_16k.wav"
TALKER_ALTERNATE = "/usr/share/sounds/linphone/hello16000.wav"

# Classes whose sounds SoundCompass alerts on (--alert siren,alarm,horn).
ALERT_CLASSES = ("alarm", "siren", "car horn")

# The whole Music subtree of AudioSet (yamnet_class_map.csv from "Music" to "Scary music").
MUSIC = [
    "Music", "Musical instrument", "Plucked string instrument", "Guitar", "Electric guitar", "Bass guitar",
    "Acoustic guitar", "Steel guitar, slide guitar", "Tapping (guitar technique)", "Strum", "Banjo", "Sitar",
    "Mandolin", "Zither", "Ukulele", "Keyboard (musical)", "Piano", "Electric piano", "Organ", "Electronic organ",
    "Hammond organ", "Synthesizer", "Sampler", "Harpsichord", "Percussion", "Drum kit", "Drum machine", "Drum",
    "Snare drum", "Rimshot", "Drum roll", "Bass drum", "Timpani", "Tabla", "Cymbal", "Hi-hat", "Wood block",
    "Tambourine", "Rattle (instrument)", "Maraca", "Gong", "Tubular bells", "Mallet percussion",
    "Marimba, xylophone", "Glockenspiel", "Vibraphone", "Steelpan", "Orchestra", "Brass instrument",
    "French horn", "Trumpet", "Trombone", "Bowed string instrument", "String section", "Violin, fiddle",
    "Pizzicato", "Cello", "Double bass", "Wind instrument, woodwind instrument", "Flute", "Saxophone",
    "Clarinet", "Harp", "Bell", "Church bell", "Jingle bell", "Bicycle bell", "Tuning fork", "Chime",
    "Wind chime", "Change ringing (campanology)", "Harmonica", "Accordion", "Bagpipes", "Didgeridoo", "Shofar",
    "Theremin", "Singing bowl", "Scratching (performance technique)", "Pop music", "Hip hop music",
    "Beatboxing", "Rock music", "Heavy metal", "Punk rock", "Grunge", "Progressive rock", "Rock and roll",
    "Psychedelic rock", "Rhythm and blues", "Soul music", "Reggae", "Country", "Swing music", "Bluegrass",
    "Funk", "Folk music", "Middle Eastern music", "Jazz", "Disco", "Classical music", "Opera",
    "Electronic music", "House music", "Techno", "Dubstep", "Drum and bass", "Electronica",
    "Electronic dance music", "Ambient music", "Trance music", "Music of Latin America", "Salsa music",
    "Flamenco", "Blues", "Music for children", "New-age music", "Vocal music", "A capella", "Music of Africa",
    "Afrobeat", "Christian music", "Gospel music", "Music of Asia", "Carnatic music", "Music of Bollywood",
    "Ska", "Traditional music", "Independent music", "Song", "Background music", "Theme music",
    "Jingle (music)", "Soundtrack music", "Lullaby", "Video game music", "Christmas music", "Dance music",
    "Wedding music", "Happy music", "Sad music", "Tender music", "Exciting music", "Angry music",
    "Scary music",
]

ACCEPTABLE = {
    "alarm": ["Alarm", "Alarm clock", "Smoke detector, smoke alarm", "Fire alarm", "Car alarm", "Buzzer",
              "Beep, bleep"],
    "applause": ["Applause", "Clapping", "Cheering", "Crowd", "Hands"],
    "car horn": ["Vehicle horn, car horn, honking", "Toot", "Air horn, truck horn", "Car", "Motor vehicle (road)",
                 "Vehicle"],
    "cough": ["Cough", "Throat clearing"],
    "dog": ["Dog", "Bark", "Yip", "Howl", "Bow-wow", "Growling", "Whimper (dog)", "Canidae, dogs, wolves",
            "Domestic animals, pets", "Animal"],
    "footsteps": ["Walk, footsteps", "Run", "Shuffle"],
    "glass": ["Glass", "Chink, clink", "Shatter", "Breaking", "Smash, crash"],
    "knock": ["Knock", "Door", "Tap"],
    "music": MUSIC,
    "siren": ["Siren", "Civil defense siren", "Police car (siren)", "Ambulance (siren)",
              "Fire engine, fire truck (siren)", "Emergency vehicle", "Alarm"],
    "speech": ["Speech", "Child speech, kid speaking", "Conversation", "Narration, monologue", "Babbling", "Shout",
               "Yell", "Whispering"],
    "telephone": ["Telephone", "Telephone bell ringing", "Ringtone", "Alarm"],
    "rain/water": ["Water", "Rain", "Raindrop", "Rain on surface", "Stream", "Waterfall", "Ocean", "Waves, surf",
                   "Gurgling", "Liquid", "Splash, splatter", "Slosh", "Drip", "Pour", "Trickle, dribble", "Gush",
                   "Fill (with liquid)", "Boiling", "Water tap, faucet", "Sink (filling or washing)",
                   "Bathtub (filling or washing)"],
}

CLASSES = list(ACCEPTABLE)

# The broad names of ACCEPTABLE (parents in the ontology, or generic sound names): the "strict"
# totals of labels_real.py count a class as named only without them.
BROAD = {
    "alarm": ["Beep, bleep"],
    "applause": ["Crowd", "Hands"],
    "car horn": ["Car", "Motor vehicle (road)", "Vehicle"],
    "dog": ["Domestic animals, pets", "Animal"],
    "glass": ["Breaking", "Smash, crash"],
    "knock": ["Door"],
    "siren": ["Alarm"],
    "telephone": ["Alarm"],
}
STRICT = {cls: [n for n in names if n not in BROAD.get(cls, [])] for cls, names in ACCEPTABLE.items()}
